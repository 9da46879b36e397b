// The PSP stub's Pix Automático in memory: locrec, rec, solicrec, cobr with their tentativas, and the rec/cobr webhooks.
// The payer's side (approve or reject a rec, cancel it, schedule a cobr, pay or reject a tentativa) is driven by tests
// through the controls at the end; each change is what a PSP would notify (the stub's caller POSTs it).
import { buildDynamicPix } from '../../../src/pix/brcode.ts';
import { saoPauloDate } from '../../../src/charges/due-date.ts';
import { plusDays } from '../../../src/recurring/calendar.ts';
import { asObject, alnum, invalid, isReply, notFound, ok, paginate, range, spiId } from './stub-support.ts';
import type { Query, Reply } from './stub-support.ts';
import type {
  CobGerada,
  CobR,
  CobRStatus,
  CobVGerada,
  ContaRecebedor,
  LocRec,
  PixWire,
  Rec,
  RecSolicitada,
  RecStatus,
  SolicRec,
  SolicRecSolicitada,
  Tentativa,
  TentativaStatus,
} from '../../../src/acquirer/apipix/types.ts';

export const STUB_ISPB = '12345678';
export const STUB_ACCOUNT: ContaRecebedor = { agencia: '0001', conta: '1234567', tipoConta: 'PAGAMENTO' };
const TXID = /^[a-zA-Z0-9]{26,35}$/;
// Rejection codes that end the cobr whatever its policy (the standard's CobRTentativas.rejeicao.codigo text).
const FINAL_CODES = ['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09'];

type CobRWire = Omit<CobR, 'amount'> & { devedor?: unknown; recebedor: unknown };
export type Callback = { kind: 'rec' | 'cobr'; body: unknown };

export function createRecState(opts: {
  pixKey: string;
  locationHost: string;
  now: () => Date;
  pix: Map<string, PixWire>;
  cobs: Map<string, CobGerada>;
  cobvs: Map<string, CobVGerada>;
}) {
  const locs = new Map<number, LocRec>();
  const recs = new Map<string, Rec>();
  const cobrs = new Map<string, CobRWire>();
  const webhooks: { rec?: string; cobr?: string } = {};
  let locId = 0;
  const at = () => opts.now().toISOString();
  const day = () => saoPauloDate(opts.now()).replaceAll('-', '');

  function postLocRec(): Reply {
    const loc: LocRec = {
      id: ++locId,
      location: `${opts.locationHost}/qr/v2/rec/${alnum(32).toLowerCase()}`,
      criacao: at(),
    };
    locs.set(loc.id, loc);
    return ok(loc, 201);
  }

  function postRec(body: unknown): Reply {
    const b = asObject(body) as unknown as RecSolicitada;
    const valor = asObject(b.valor);
    if (valor.valorRec !== undefined && valor.valorMinimoRecebedor !== undefined)
      return invalid('RecOperacaoInvalida', 'rec.valor', 'valorMinimoRecebedor não pode ser usado com valorRec.');
    if (b.calendario.dataFinal && b.calendario.dataFinal < b.calendario.dataInicial)
      return invalid('RecOperacaoInvalida', 'rec.calendario.dataFinal', 'dataFinal anterior a dataInicial.');
    const loc = b.loc === undefined ? undefined : locs.get(b.loc);
    if (b.loc !== undefined && (!loc || loc.idRec))
      return invalid('RecOperacaoInvalida', 'rec.loc', 'A location não existe ou já está vinculada a uma recorrência.');
    const idRec = `R${b.politicaRetentativa === 'PERMITE_3R_7D' ? 'R' : 'N'}${STUB_ISPB}${day()}${alnum(11)}`;
    if (loc) loc.idRec = idRec;
    const rec: Rec & { recebedor: unknown } = {
      idRec,
      status: 'CRIADA',
      vinculo: b.vinculo,
      calendario: b.calendario,
      valor: b.valor,
      politicaRetentativa: b.politicaRetentativa,
      recebedor: { cnpj: '12345678000195', nome: 'PSP STUB' },
      loc,
      atualizacao: [{ status: 'CRIADA', data: at() }],
      solicitacao: [],
      ativacao: {
        tipoJornada: 'AGUARDANDO_DEFINICAO',
        ...(b.ativacao ? { dadosJornada: b.ativacao.dadosJornada } : {}),
      },
    };
    recs.set(idRec, rec);
    return ok(rec, 201);
  }

  // The QR of journeys 2 (the rec alone), 3 (with a cob) and 4 (with a cobv): field 26 the charge's location (the
  // rec's for journey 2), field 80 the rec's.
  function getRec(idRec: string, q: Query): Reply {
    const rec = recs.get(idRec);
    if (!rec) return notFound('Recorrência');
    const txid = q.get('txid');
    const charge = txid ? (opts.cobs.get(txid) ?? opts.cobvs.get(txid)) : undefined;
    if (txid && !charge) return notFound('Cobrança');
    if (!rec.loc) return ok(rec);
    const jornada = !charge ? 'JORNADA_2' : opts.cobs.has(txid!) ? 'JORNADA_3' : 'JORNADA_4';
    const amount = charge && 'expiracao' in charge.calendario ? charge.valor.original : undefined;
    const pixCopiaECola = buildDynamicPix({
      location: charge?.location ?? rec.loc.location,
      amountCents: amount ? Number(amount.replace('.', '')) : undefined,
      merchantName: 'PSP STUB',
      merchantCity: 'SAO PAULO',
      recurrenceLocation: rec.loc.location,
    });
    return ok({ ...rec, dadosQR: { jornada, pixCopiaECola } });
  }

  function changeRec(rec: Rec, status: RecStatus, encerramento?: Rec['encerramento']) {
    rec.status = status;
    rec.atualizacao.push({ status, data: at() });
    if (encerramento) rec.encerramento = encerramento;
    if (status === 'CANCELADA' || status === 'REJEITADA' || status === 'EXPIRADA')
      for (const c of cobrs.values()) if (c.idRec === rec.idRec) endCobR(c, 'CANCELADA');
  }

  function patchRec(idRec: string, body: unknown): Reply {
    const rec = recs.get(idRec);
    if (!rec) return notFound('Recorrência');
    if (asObject(body).status !== 'CANCELADA')
      return invalid('RecOperacaoInvalida', 'rec.status', 'O stub só aceita o cancelamento da recorrência.');
    if (rec.status === 'CANCELADA') return ok(rec);
    if (rec.status !== 'CRIADA' && rec.status !== 'APROVADA')
      return invalid('RecOperacaoInvalida', 'rec.status', `A recorrência está ${rec.status}.`);
    const descricao = 'Cancelamento solicitado pelo usuário recebedor';
    changeRec(rec, 'CANCELADA', { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao } });
    return ok(rec);
  }

  // Listings: what changed in [inicio, fim] (a status, or a tentativa's).
  const changedIn = (dates: string[], from: number, to: number) =>
    dates.some((d) => Date.parse(d) >= from && Date.parse(d) <= to);

  function listRecs(q: Query): Reply {
    const r = range(q);
    if (isReply(r)) return r;
    const found = [...recs.values()].filter((x) =>
      changedIn(
        x.atualizacao.map((a) => a.data),
        r.from,
        r.to,
      ),
    );
    const pg = paginate(found, q);
    if (isReply(pg)) return pg;
    return ok({ parametros: { inicio: r.inicio, fim: r.fim, paginacao: pg.paginacao }, recs: pg.page });
  }

  function postSolicRec(body: unknown): Reply {
    const b = asObject(body) as unknown as SolicRecSolicitada;
    const rec = recs.get(b.idRec);
    if (!rec) return notFound('Recorrência');
    if (rec.status !== 'CRIADA')
      return invalid('SolicRecOperacaoInvalida', 'solicrec.idRec', `A recorrência está ${rec.status}.`);
    if (rec.solicitacao?.some((s) => s.status === 'ENVIADA'))
      return invalid('SolicRecOperacaoInvalida', 'solicrec.idRec', 'Já existe uma solicitação em aberto.');
    const solic: SolicRec = {
      ...b,
      idSolicRec: `SC${STUB_ISPB}${day()}${alnum(11)}`,
      status: 'ENVIADA',
      atualizacao: [
        { status: 'CRIADA', data: at() },
        { status: 'ENVIADA', data: at() },
      ],
    };
    rec.solicitacao!.push(solic);
    return ok(solic, 201);
  }

  function putCobR(txid: string, body: unknown): Reply {
    if (!TXID.test(txid)) return invalid('CobROperacaoInvalida', 'cobr.txid', 'txid inválido.');
    const b = asObject(body) as unknown as CobRWire & { recebedor: ContaRecebedor };
    const existing = cobrs.get(txid);
    if (existing) {
      const same = existing.idRec === b.idRec && existing.valor.original === b.valor.original;
      if (same) return ok(existing, 201);
      return invalid('CobROperacaoInvalida', 'cobr.txid', 'O txid informado já foi utilizado por outra cobrança.');
    }
    const rec = recs.get(b.idRec);
    if (!rec) return invalid('CobROperacaoInvalida', 'cobr.idRec', 'Recorrência não encontrada.');
    if (rec.status !== 'APROVADA')
      return invalid('CobROperacaoInvalida', 'cobr.idRec', `A recorrência está ${rec.status}.`);
    if (b.recebedor.conta !== STUB_ACCOUNT.conta || b.recebedor.tipoConta !== STUB_ACCOUNT.tipoConta)
      return invalid('CobROperacaoInvalida', 'cobr.recebedor', 'A conta não pertence ao usuário recebedor.');
    const devedor = asObject(b.devedor);
    const recDevedor = asObject(rec.vinculo?.devedor);
    if ((devedor.cpf ?? devedor.cnpj) !== (recDevedor.cpf ?? recDevedor.cnpj))
      return invalid('CobROperacaoInvalida', 'cobr.devedor', 'O devedor não é o da recorrência.');
    const cobr: CobRWire = {
      idRec: b.idRec,
      txid,
      status: 'CRIADA',
      calendario: { criacao: saoPauloDate(opts.now()), dataDeVencimento: b.calendario.dataDeVencimento },
      valor: { original: b.valor.original },
      politicaRetentativa: rec.politicaRetentativa,
      ajusteDiaUtil: b.ajusteDiaUtil,
      infoAdicional: b.infoAdicional,
      devedor: b.devedor,
      recebedor: b.recebedor,
      atualizacao: [{ status: 'CRIADA', data: at() }],
      tentativas: [],
    };
    cobrs.set(txid, cobr);
    return ok(cobr, 201);
  }

  function tentativaTo(t: Tentativa, status: TentativaStatus) {
    t.status = status;
    (t.atualizacao ??= []).push({ status, data: at() });
  }

  function endCobR(c: CobRWire, status: CobRStatus, encerramento?: CobRWire['encerramento']) {
    if (c.status !== 'CRIADA' && c.status !== 'ATIVA') return;
    c.status = status;
    c.atualizacao.push({ status, data: at() });
    if (encerramento) c.encerramento = encerramento;
    if (status !== 'CONCLUIDA')
      for (const t of c.tentativas)
        if (t.status === 'SOLICITADA' || t.status === 'AGENDADA') tentativaTo(t, 'CANCELADA');
  }

  function patchCobR(txid: string, body: unknown): Reply {
    const c = cobrs.get(txid);
    if (!c) return notFound('Cobrança');
    if (asObject(body).status !== 'CANCELADA')
      return invalid('CobROperacaoInvalida', 'cobr.status', 'O stub só aceita o cancelamento.');
    if (c.status === 'CANCELADA') return ok(c);
    if (c.status !== 'CRIADA' && c.status !== 'ATIVA')
      return invalid('CobROperacaoInvalida', 'cobr.status', `A cobrança está ${c.status}.`);
    const descricao = 'Cancelamento de agendamento solicitado pelo usuário recebedor';
    endCobR(c, 'CANCELADA', { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao } });
    return ok(c);
  }

  const withPix = (c: CobRWire) => ({ ...c, pix: [...opts.pix.values()].filter((p) => p.txid === c.txid) });

  function getCobR(txid: string): Reply {
    const c = cobrs.get(txid);
    return c ? ok(withPix(c)) : notFound('Cobrança');
  }

  function postRetentativa(txid: string, data: string): Reply {
    const c = cobrs.get(txid);
    if (!c) return notFound('Cobrança');
    const no = (detail: string) => invalid('CobROperacaoInvalida', 'cobr.tentativas', detail);
    if (c.politicaRetentativa !== 'PERMITE_3R_7D')
      return no('A política configurada na recorrência não permite retentativa de cobrança.');
    if (c.status !== 'ATIVA') return no(`A cobrança está ${c.status}.`);
    const last = c.tentativas[c.tentativas.length - 1];
    if (last?.status !== 'REJEITADA') return no('A última tentativa não foi rejeitada.');
    if (c.tentativas.some((t) => t.dataLiquidacao === data)) return no('Já existe uma tentativa nesta data.');
    if (c.tentativas.filter((t) => t.tipo === 'NTAG').length >= 3) return no('Limite de retentativas atingido.');
    const due = c.calendario.dataDeVencimento;
    if (data < plusDays(due, 1) || data > plusDays(due, 7)) return no('data fora da janela de retentativa.');
    c.tentativas.push({
      dataLiquidacao: data,
      tipo: 'NTAG',
      status: 'SOLICITADA',
      endToEndId: spiId('E', opts.now()),
      atualizacao: [{ status: 'SOLICITADA', data: at() }],
    });
    return ok(withPix(c), 201);
  }

  function listCobRs(q: Query): Reply {
    const r = range(q);
    if (isReply(r)) return r;
    const dates = (c: CobRWire) => [
      ...c.atualizacao.map((a) => a.data),
      ...c.tentativas.flatMap((t) => (t.atualizacao ?? []).map((a) => a.data)),
    ];
    const found = [...cobrs.values()].filter((c) => changedIn(dates(c), r.from, r.to));
    const pg = paginate(found, q);
    if (isReply(pg)) return pg;
    return ok({ parametros: { inicio: r.inicio, fim: r.fim, paginacao: pg.paginacao }, cobsr: pg.page.map(withPix) });
  }

  function putWebhook(kind: 'rec' | 'cobr', body: unknown): Reply {
    const url = asObject(body).webhookUrl;
    if (typeof url !== 'string' || !URL.canParse(url))
      return invalid('WebhookOperacaoInvalida', 'webhookUrl', 'webhookUrl deve ser uma URL.');
    webhooks[kind] = url;
    return ok({ webhookUrl: url });
  }
  function getWebhook(kind: 'rec' | 'cobr'): Reply {
    const url = webhooks[kind];
    return url ? ok({ webhookUrl: url, criacao: at() }) : notFound('Webhook');
  }

  // What the PSP POSTs to <webhookrec>/rec and <webhookcobr>/cobr (RecNotification, CobRNotification).
  const recCallback = (rec: Rec): Callback => ({
    kind: 'rec',
    body: {
      recs: [
        {
          idRec: rec.idRec,
          status: rec.status,
          atualizacao: rec.atualizacao,
          ...(rec.encerramento ? { encerramento: rec.encerramento } : {}),
          ...(rec.ativacao ? { ativacao: rec.ativacao } : {}),
        },
      ],
    },
  });
  const cobrCallback = (c: CobRWire): Callback => {
    const { idRec, txid, status, atualizacao, tentativas } = withPix(c);
    return { kind: 'cobr', body: { cobsr: [{ idRec, txid, status, atualizacao, tentativas, pix: withPix(c).pix }] } };
  };

  const recOrThrow = (idRec: string) => {
    const rec = recs.get(idRec);
    if (!rec) throw new Error(`no rec ${idRec}`);
    return rec;
  };
  const cobrOrThrow = (txid: string) => {
    const c = cobrs.get(txid);
    if (!c) throw new Error(`no cobr ${txid}`);
    return c;
  };
  const lastSolic = (rec: Rec) => rec.solicitacao?.[rec.solicitacao.length - 1];
  const solicTo = (rec: Rec, status: 'ACEITA' | 'REJEITADA') => {
    const s = lastSolic(rec);
    if (s?.status !== 'ENVIADA') return;
    s.status = status;
    s.atualizacao.push({ status, data: at() });
  };

  // Controls: the payer (through the payer's PSP) and the SPI. Each returns what the PSP would notify.
  const controls = {
    approveRec(idRec: string): Callback {
      const rec = recOrThrow(idRec);
      if (rec.status !== 'CRIADA') throw new Error(`rec ${idRec} is ${rec.status}`);
      solicTo(rec, 'ACEITA');
      const journey = lastSolic(rec) ? 'JORNADA_1' : rec.ativacao?.dadosJornada?.txid ? 'JORNADA_3' : 'JORNADA_2';
      rec.ativacao = { ...rec.ativacao, tipoJornada: journey };
      changeRec(rec, 'APROVADA');
      return recCallback(rec);
    },
    rejectRec(idRec: string): Callback {
      const rec = recOrThrow(idRec);
      solicTo(rec, 'REJEITADA');
      changeRec(rec, 'REJEITADA', {
        rejeicao: { codigo: 'AP13', descricao: 'Recorrência rejeitada pelo usuário pagador' },
      });
      return recCallback(rec);
    },
    // The payer's PSP refuses the solicitação (journey 1); the rec stays CRIADA, open to another.
    rejectSolicRec(idRec: string): Callback {
      const rec = recOrThrow(idRec);
      solicTo(rec, 'REJEITADA');
      return recCallback(rec);
    },
    payerCancelRec(idRec: string, descricao = 'Cancelamento solicitado pelo usuário pagador'): Callback {
      const rec = recOrThrow(idRec);
      changeRec(rec, 'CANCELADA', { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'SLDB', descricao } });
      return recCallback(rec);
    },
    // The payer cancels the scheduled charge at its PSP (allowed until the eve of its date).
    payerCancelCobR(txid: string): Callback {
      const c = cobrOrThrow(txid);
      const descricao = 'Cancelamento de agendamento solicitado pelo usuário pagador';
      endCobR(c, 'CANCELADA', { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'SLDB', descricao } });
      return cobrCallback(c);
    },
    // The payer's PSP scheduled the cobr: ATIVA, its due date's tentativa AGENDADA.
    activateCobR(txid: string): Callback {
      const c = cobrOrThrow(txid);
      if (c.status !== 'CRIADA') throw new Error(`cobr ${txid} is ${c.status}`);
      c.status = 'ATIVA';
      c.atualizacao.push({ status: 'ATIVA', data: at() });
      c.tentativas.push({
        dataLiquidacao: c.calendario.dataDeVencimento,
        tipo: 'AGND',
        status: 'AGENDADA',
        endToEndId: spiId('E', opts.now()),
        atualizacao: [{ status: 'AGENDADA', data: at() }],
      });
      return cobrCallback(c);
    },
    // The open tentativa settles: PAGA (a Pix with the cobr's txid arrives; the cobr is CONCLUIDA), or REJEITADA (the
    // cobr stays ATIVA while its policy allows retries and the code does not end it).
    settleTentativa(txid: string, outcome: 'PAGA' | 'REJEITADA', codigo = 'AC06'): { cobr: Callback; pix?: PixWire } {
      const c = cobrOrThrow(txid);
      const t = c.tentativas.find((x) => x.status === 'SOLICITADA' || x.status === 'AGENDADA');
      if (!t) throw new Error(`cobr ${txid} has no open tentativa`);
      if (outcome === 'REJEITADA') {
        tentativaTo(t, 'REJEITADA');
        t.rejeicao = { codigo, descricao: 'Tentativa rejeitada pelo PSP pagador' };
        const retries = c.tentativas.filter((x) => x.tipo === 'NTAG').length;
        const ends = c.politicaRetentativa !== 'PERMITE_3R_7D' || FINAL_CODES.includes(codigo) || retries >= 3;
        if (ends) endCobR(c, 'REJEITADA', { rejeicao: { codigo, descricao: 'Cobrança rejeitada' } });
        return { cobr: cobrCallback(c) };
      }
      const horario = opts.now();
      const pix: PixWire = {
        endToEndId: t.endToEndId ?? spiId('E', horario),
        txid,
        valor: c.valor.original,
        chave: opts.pixKey,
        horario: horario.toISOString(),
      };
      t.endToEndId = pix.endToEndId;
      opts.pix.set(pix.endToEndId, pix);
      tentativaTo(t, 'PAGA');
      endCobR(c, 'CONCLUIDA');
      return { cobr: cobrCallback(c), pix };
    },
    recCallback: (idRec: string) => recCallback(recOrThrow(idRec)),
    cobrCallback: (txid: string) => cobrCallback(cobrOrThrow(txid)),
  };

  return {
    locs,
    recs,
    cobrs,
    webhooks,
    handlers: {
      postLocRec,
      postRec,
      getRec,
      patchRec,
      listRecs,
      postSolicRec,
      putCobR,
      patchCobR,
      getCobR,
      postRetentativa,
      listCobRs,
      putWebhook,
      getWebhook,
    },
    controls,
  };
}
