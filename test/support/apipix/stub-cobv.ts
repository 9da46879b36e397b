// The PSP stub's charges with a due date (API Pix cobv), in memory. A payment is made as the payer's PSP would make it:
// the amount due on the payment's day (São Paulo), computed from the cobv's own valor (its modalidades read back here,
// independently of the adapter's mapping), with its componentesValor.
import { buildDynamicPix } from '../../../src/pix/brcode.ts';
import { fromWire, toWire } from '../../../src/acquirer/apipix/money.ts';
import { saoPauloDate } from '../../../src/charges/due-date.ts';
import { amountDueOn, type Components } from '../../../src/money/due-date-amounts.ts';
import type { DueTerms } from '../../../src/money/due-terms.ts';
import { alnum, asObject, invalid, notFound, ok, spiId, type Reply } from './stub-support.ts';
import type { DuplicatePut, PayInput } from './stub-pix.ts';
import type { CobVGerada, CobVValor, ComponentesValor, PixWire } from '../../../src/acquirer/apipix/types.ts';

const TXID = /^[a-zA-Z0-9]{26,35}$/;

// What the payer pays a cobv: by default the amount due that day; `components` overrides what the PSP reports.
export type PayCobVInput = PayInput & { components?: Partial<Omit<Components, 'final'>> };

// CobVValor -> the terms (valorPerc is reais for an amount, a percentage for basis points: the same digits).
export function termsOfValor(valor: CobVValor): DueTerms {
  const n = (v: string | undefined) => fromWire(v);
  const byMode = <M extends string>(modes: Record<number, M>, modalidade: number) => {
    const mode = modes[modalidade];
    if (!mode) throw new RangeError(`modalidade ${modalidade} not supported by the stub`);
    return mode;
  };
  const amountOrBps = (mode: string, valorPerc: string | undefined) =>
    /AMOUNT|FIXED/.test(mode) ? { amount: n(valorPerc) } : { bps: n(valorPerc) };
  const { abatimento: a, multa: m, juros: j, desconto: d } = valor;
  const rebate = a ? byMode({ 1: 'FIXED', 2: 'PERCENT' } as const, a.modalidade) : null;
  const fine = m ? byMode({ 1: 'FIXED', 2: 'PERCENT' } as const, m.modalidade) : null;
  const interest = j
    ? byMode(
        { 1: 'DAILY_AMOUNT', 2: 'DAILY_PERCENT', 3: 'MONTHLY_PERCENT', 4: 'YEARLY_PERCENT' } as const,
        j.modalidade,
      )
    : null;
  const discount = d
    ? byMode({ 1: 'FIXED_UNTIL', 2: 'PERCENT_UNTIL', 3: 'DAILY_AMOUNT', 5: 'DAILY_PERCENT' } as const, d.modalidade)
    : null;
  return {
    rebate: rebate && ({ mode: rebate, ...amountOrBps(rebate, a!.valorPerc) } as DueTerms['rebate']),
    fine: fine && ({ mode: fine, ...amountOrBps(fine, m!.valorPerc) } as DueTerms['fine']),
    interest: interest && ({ mode: interest, ...amountOrBps(interest, j!.valorPerc) } as DueTerms['interest']),
    discount:
      discount &&
      ((discount === 'FIXED_UNTIL' || discount === 'PERCENT_UNTIL'
        ? {
            mode: discount,
            dates: (d!.descontoDataFixa ?? []).map((x) => ({ until: x.data, ...amountOrBps(discount, x.valorPerc) })),
          }
        : { mode: discount, ...amountOrBps(discount, d!.valorPerc) }) as DueTerms['discount']),
  };
}

export function createCobVState(opts: {
  pixKey: string;
  locationHost: string;
  duplicatePut: DuplicatePut;
  now: () => Date;
  pix: Map<string, PixWire>; // the Pix received, shared with the cob side
}) {
  const cobvs = new Map<string, CobVGerada>();
  let locId = 0;

  function putCobV(txid: string, body: unknown): Reply {
    if (!TXID.test(txid))
      return invalid('CobVOperacaoInvalida', 'cobv.txid', 'txid deve ter de 26 a 35 caracteres alfanuméricos.');
    const b = asObject(body) as unknown as Omit<CobVGerada, 'calendario'> & { calendario: Record<string, unknown> };
    if (b.chave !== opts.pixKey)
      return invalid('CobVOperacaoInvalida', 'cobv.chave', 'A chave informada não pertence ao usuário recebedor.');
    const existing = cobvs.get(txid);
    if (existing) {
      const same = existing.valor.original === b.valor.original && existing.chave === b.chave;
      if (same && opts.duplicatePut === 'replay') return ok(existing, 201);
      return invalid('CobVOperacaoInvalida', 'cobv.txid', 'O txid informado já foi utilizado por outra cobrança.');
    }
    const criacao = opts.now().toISOString();
    const location = `${opts.locationHost}/qr/v2/cobv/${alnum(32).toLowerCase()}`;
    const cobv: CobVGerada = {
      calendario: {
        criacao,
        dataDeVencimento: String(b.calendario.dataDeVencimento),
        validadeAposVencimento: Number(b.calendario.validadeAposVencimento ?? 30),
      },
      txid,
      revisao: 0,
      loc: { id: ++locId, location, tipoCob: 'cobv', criacao },
      location,
      status: 'ATIVA',
      devedor: b.devedor,
      recebedor: { nome: 'PSP STUB', cidade: 'SAO PAULO', uf: 'SP', cep: '01000000', logradouro: 'Rua Stub' },
      valor: b.valor,
      chave: opts.pixKey,
      solicitacaoPagador: b.solicitacaoPagador,
      // a due date's amount changes by day: the payer's app reads it from the location, not from field 54
      pixCopiaECola: buildDynamicPix({ location, merchantName: 'PSP STUB', merchantCity: 'SAO PAULO' }),
    };
    cobvs.set(txid, cobv);
    return ok(cobv, 201);
  }

  function patchCobV(txid: string, body: unknown): Reply {
    const cobv = cobvs.get(txid);
    if (!cobv) return notFound('Cobrança');
    const b = asObject(body);
    if (b.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || Object.keys(b).length !== 1)
      return invalid('CobVOperacaoInvalida', 'cobv.status', 'O stub só aceita a remoção da cobrança.');
    if (cobv.status === b.status) return ok(cobv);
    if (cobv.status !== 'ATIVA')
      return invalid('CobVOperacaoInvalida', 'cobv.status', `A cobrança está ${cobv.status} e não pode ser alterada.`);
    cobv.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
    cobv.revisao += 1;
    return ok(cobv);
  }

  function getCobV(txid: string): Reply {
    const cobv = cobvs.get(txid);
    if (!cobv) return notFound('Cobrança');
    return ok({ ...cobv, pix: [...opts.pix.values()].filter((p) => p.txid === txid) });
  }

  // Control: the payer pays the cobv on the São Paulo day of `horario` (default now).
  function pay(txid: string, input: PayCobVInput = {}): PixWire {
    const cobv = cobvs.get(txid);
    if (!cobv) throw new Error(`no cobv ${txid}`);
    const horario = input.horario ?? opts.now();
    const terms = { original: fromWire(cobv.valor.original), dueDate: cobv.calendario.dataDeVencimento };
    const due = amountDueOn({ ...terms, ...termsOfValor(cobv.valor) }, saoPauloDate(horario));
    const parts = { ...due, ...input.components };
    const componentesValor: ComponentesValor = { original: { valor: toWire(parts.original) } };
    if (parts.rebate) componentesValor.abatimento = { valor: toWire(parts.rebate) };
    if (parts.discount) componentesValor.desconto = { valor: toWire(parts.discount) };
    if (parts.fine) componentesValor.multa = { valor: toWire(parts.fine) };
    if (parts.interest) componentesValor.juros = { valor: toWire(parts.interest) };
    const p: PixWire = {
      endToEndId: input.e2eid ?? spiId('E', horario),
      txid,
      valor: toWire(input.amount ?? due.final),
      componentesValor,
      chave: opts.pixKey,
      horario: horario.toISOString(),
      infoPagador: input.infoPagador,
    };
    if (opts.pix.has(p.endToEndId)) throw new Error(`Pix ${p.endToEndId} already exists`);
    opts.pix.set(p.endToEndId, p);
    if (cobv.status === 'ATIVA') cobv.status = 'CONCLUIDA';
    return p;
  }

  return { cobvs, putCobV, patchCobV, getCobV, pay };
}
