// The PSP stub's API Pix standard in memory: cobs, the Pix received, devoluções and webhooks.
import { buildDynamicPix } from '../../../src/pix/brcode.ts';
import { fromWire, toWire } from '../../../src/acquirer/apipix/money.ts';
import {
  asObject,
  ID35,
  invalid,
  isReply,
  notFound,
  ok,
  paginate,
  problem,
  range,
  spiId,
  VALOR,
  alnum,
  type Query,
  type Reply,
} from './stub-support.ts';
import type {
  CobGerada,
  DevolucaoStatus,
  DevolucaoWire,
  PixWire,
  WebhookCompleto,
} from '../../../src/acquirer/apipix/types.ts';

export type DuplicatePut = 'replay' | 'reject'; // an identical PUT on an existing id: answered again, or refused
export type PayInput = { amount?: number; horario?: Date; e2eid?: string; infoPagador?: string };

const TXID = /^[a-zA-Z0-9]{26,35}$/;
const E2EID = /^[a-zA-Z0-9]{32}$/;

export function createPixState(opts: {
  pixKey: string;
  locationHost: string;
  duplicatePut: DuplicatePut;
  now: () => Date;
}) {
  const cobs = new Map<string, CobGerada>();
  const pix = new Map<string, PixWire>();
  const webhooks = new Map<string, WebhookCompleto>();
  let locId = 0;

  function brCode(cob: CobGerada): string {
    const cents = fromWire(cob.valor.original);
    return buildDynamicPix({
      location: cob.location!,
      amountCents: cents > 0 ? cents : undefined,
      merchantName: 'PSP STUB',
      merchantCity: 'SAO PAULO',
    });
  }

  function checkCobBody(b: Record<string, unknown>, partial: boolean): Reply | null {
    const cal = asObject(b.calendario);
    const valor = asObject(b.valor);
    if (
      b.calendario !== undefined &&
      cal.expiracao !== undefined &&
      !(Number.isInteger(cal.expiracao) && (cal.expiracao as number) > 0)
    ) {
      return invalid('CobOperacaoInvalida', 'cob.calendario.expiracao', 'expiracao deve ser um inteiro positivo.');
    }
    if ((!partial || b.valor !== undefined) && !VALOR.test(String(valor.original))) {
      return invalid('CobOperacaoInvalida', 'cob.valor.original', 'valor.original não respeita o schema.');
    }
    if ((!partial || b.chave !== undefined) && b.chave !== opts.pixKey) {
      return invalid('CobOperacaoInvalida', 'cob.chave', 'A chave informada não pertence ao usuário recebedor.');
    }
    return null;
  }

  function putCob(txid: string, body: unknown): Reply {
    if (!TXID.test(txid))
      return invalid('CobOperacaoInvalida', 'cob.txid', 'txid deve ter de 26 a 35 caracteres alfanuméricos.');
    const b = asObject(body);
    const error = checkCobBody(b, false);
    if (error) return error;
    const existing = cobs.get(txid);
    if (existing) {
      const same = existing.valor.original === asObject(b.valor).original && existing.chave === b.chave;
      if (same && opts.duplicatePut === 'replay') return ok(existing, 201);
      return invalid('CobOperacaoInvalida', 'cob.txid', 'O txid informado já foi utilizado por outra cobrança.');
    }
    const criacao = opts.now().toISOString();
    const location = `${opts.locationHost}/qr/v2/${alnum(32).toLowerCase()}`;
    const cob: CobGerada = {
      calendario: { criacao, expiracao: Number(asObject(b.calendario).expiracao ?? 86_400) },
      txid,
      revisao: 0,
      loc: { id: ++locId, location, tipoCob: 'cob', criacao },
      location,
      status: 'ATIVA',
      devedor: b.devedor as CobGerada['devedor'],
      valor: { original: String(asObject(b.valor).original) },
      chave: opts.pixKey,
      solicitacaoPagador: b.solicitacaoPagador as string | undefined,
      infoAdicionais: b.infoAdicionais as CobGerada['infoAdicionais'],
    };
    cob.pixCopiaECola = brCode(cob);
    cobs.set(txid, cob);
    return ok(cob, 201);
  }

  function patchCob(txid: string, body: unknown): Reply {
    const cob = cobs.get(txid);
    if (!cob) return notFound('Cobrança');
    const b = asObject(body);
    const error = checkCobBody(b, true);
    if (error) return error;
    if (b.status !== undefined && b.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') {
      return invalid('CobOperacaoInvalida', 'cob.status', 'status só pode ser REMOVIDA_PELO_USUARIO_RECEBEDOR.');
    }
    if (cob.status !== 'ATIVA' && !(cob.status === b.status && Object.keys(b).length === 1)) {
      return invalid('CobOperacaoInvalida', 'cob.status', `A cobrança está ${cob.status} e não pode ser alterada.`);
    }
    if (cob.status === b.status) return ok(cob); // removing twice changes nothing
    if (b.status) cob.status = b.status as CobGerada['status'];
    if (b.valor !== undefined) cob.valor = { original: String(asObject(b.valor).original) };
    if (asObject(b.calendario).expiracao !== undefined)
      cob.calendario.expiracao = Number(asObject(b.calendario).expiracao);
    if (b.devedor !== undefined) cob.devedor = b.devedor as CobGerada['devedor'];
    if (b.solicitacaoPagador !== undefined) cob.solicitacaoPagador = String(b.solicitacaoPagador);
    cob.revisao += 1;
    cob.pixCopiaECola = brCode(cob);
    return ok(cob);
  }

  function getCob(txid: string): Reply {
    const cob = cobs.get(txid);
    if (!cob) return notFound('Cobrança');
    return ok({ ...cob, pix: [...pix.values()].filter((p) => p.txid === txid) });
  }

  function getPix(e2eid: string): Reply {
    const p = pix.get(e2eid);
    return p ? ok(p) : notFound('Pix');
  }

  function listPix(q: Query): Reply {
    const r = range(q);
    if (isReply(r)) return r;
    const txid = q.get('txid');
    const found = [...pix.values()]
      .filter((p) => Date.parse(p.horario) >= r.from && Date.parse(p.horario) <= r.to && (!txid || p.txid === txid))
      .sort((a, b) => Date.parse(a.horario) - Date.parse(b.horario));
    const pg = paginate(found, q);
    if (isReply(pg)) return pg;
    return ok({ parametros: { inicio: r.inicio, fim: r.fim, paginacao: pg.paginacao }, pix: pg.page });
  }

  function putDevolucao(e2eid: string, id: string, body: unknown): Reply {
    const p = pix.get(e2eid);
    if (!p) return notFound('Pix');
    if (!ID35.test(id))
      return invalid('DevolucaoOperacaoInvalida', 'devolucao.id', 'id deve ter de 1 a 35 caracteres alfanuméricos.');
    const b = asObject(body);
    if (!VALOR.test(String(b.valor)))
      return invalid('DevolucaoOperacaoInvalida', 'devolucao.valor', 'valor não respeita o schema.');
    p.devolucoes ??= [];
    const existing = p.devolucoes.find((d) => d.id === id);
    if (existing) {
      if (existing.valor === b.valor && opts.duplicatePut === 'replay') return ok(existing, 201);
      return invalid('DevolucaoOperacaoInvalida', 'devolucao.id', 'O id de devolução informado já foi utilizado.');
    }
    const taken = p.devolucoes
      .filter((d) => d.status !== 'NAO_REALIZADO')
      .reduce((sum, d) => sum + fromWire(d.valor), 0);
    if (taken + fromWire(b.valor) > fromWire(p.valor)) {
      return invalid('DevolucaoOperacaoInvalida', 'devolucao.valor', 'A soma das devoluções excede o valor do Pix.');
    }
    const devolucao: DevolucaoWire = {
      id,
      rtrId: spiId('D', opts.now()),
      valor: String(b.valor),
      natureza: (b.natureza as DevolucaoWire['natureza']) ?? 'ORIGINAL',
      descricao: b.descricao as string | undefined,
      horario: { solicitacao: opts.now().toISOString() },
      status: 'EM_PROCESSAMENTO',
    };
    p.devolucoes.push(devolucao);
    return ok(devolucao, 201);
  }

  function getDevolucao(e2eid: string, id: string): Reply {
    const d = pix.get(e2eid)?.devolucoes?.find((x) => x.id === id);
    return d ? ok(d) : notFound('Devolução');
  }

  function putWebhook(chave: string, body: unknown): Reply {
    const url = asObject(body).webhookUrl;
    if (typeof url !== 'string' || !URL.canParse(url))
      return invalid('WebhookOperacaoInvalida', 'webhookUrl', 'webhookUrl deve ser uma URL.');
    if (chave !== opts.pixKey)
      return problem(400, 'WebhookOperacaoInvalida', 'A chave não pertence ao usuário recebedor.');
    webhooks.set(chave, { webhookUrl: url, chave, criacao: opts.now().toISOString() });
    return ok({ webhookUrl: url });
  }

  function getWebhook(chave: string): Reply {
    const w = webhooks.get(chave);
    return w ? ok(w) : notFound('Webhook');
  }

  // Control: the payer pays `txid` (a cob of ours, or any txid, to simulate money for an unknown charge).
  function pay(txid: string, input: PayInput = {}): PixWire {
    const cob = cobs.get(txid);
    if (input.e2eid !== undefined && !E2EID.test(input.e2eid)) throw new RangeError('e2eid must be 32 alphanumerics');
    const horario = input.horario ?? opts.now();
    const p: PixWire = {
      endToEndId: input.e2eid ?? spiId('E', horario),
      txid,
      valor: input.amount === undefined ? (cob?.valor.original ?? '1.00') : toWire(input.amount),
      chave: opts.pixKey,
      horario: horario.toISOString(),
      infoPagador: input.infoPagador,
    };
    if (pix.has(p.endToEndId)) throw new Error(`Pix ${p.endToEndId} already exists`);
    pix.set(p.endToEndId, p);
    if (cob?.status === 'ATIVA') cob.status = 'CONCLUIDA';
    return p;
  }

  // Control: the SPI settles (or refuses) a devolução; returns its Pix, which the webhook carries.
  function settleDevolucao(
    e2eid: string,
    id: string,
    status: Exclude<DevolucaoStatus, 'EM_PROCESSAMENTO'>,
    motivo?: string,
  ): PixWire {
    const p = pix.get(e2eid);
    const d = p?.devolucoes?.find((x) => x.id === id);
    if (!p || !d) throw new Error(`no devolução ${id} of Pix ${e2eid}`);
    d.status = status;
    if (status === 'DEVOLVIDO') d.horario.liquidacao = opts.now().toISOString();
    if (motivo !== undefined) d.motivo = motivo;
    return p;
  }

  return {
    cobs,
    pix,
    webhooks,
    putCob,
    patchCob,
    getCob,
    getPix,
    listPix,
    putDevolucao,
    getDevolucao,
    putWebhook,
    getWebhook,
    pay,
    settleDevolucao,
  };
}
