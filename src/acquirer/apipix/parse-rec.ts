// Pix Automático answers of the PSP (rec, locrec, solicrec, cobr), checked where our code depends on them. As in
// parse.ts, a 2xx answer that breaks the standard is ApiPixError 'unavailable': the outcome is unknown.
import { ApiPixError } from './errors.ts';
import { fromWire } from './money.ts';
import type {
  Atualizacao,
  CobR,
  CobRStatus,
  LocRec,
  Rec,
  RecStatus,
  SolicRec,
  SolicRecStatus,
  Tentativa,
  TentativaStatus,
} from './types.ts';

type Ctx = { call: string; status: number };
type Obj = Record<string, unknown>;

const bad = (ctx: Ctx, detail: string) =>
  new ApiPixError({ call: ctx.call, status: ctx.status, kind: 'unavailable', detail });

function object(ctx: Ctx, body: unknown, what: string): Obj {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad(ctx, `${what} is not an object`);
  return body as Obj;
}

function oneOf<S extends string>(ctx: Ctx, value: unknown, allowed: readonly S[], what: string): S {
  if (typeof value !== 'string' || !allowed.includes(value as S)) throw bad(ctx, `${what}: ${JSON.stringify(value)}`);
  return value as S;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

// The contract's recId (RR|RN, the receiver PSP's ISPB, YYYYMMDD, 11 characters): what the service promises.
export const REC_ID = /^R[RN][0-9]{8}[0-9]{8}[A-Za-z0-9]{11}$/;
const TXID = /^[a-zA-Z0-9]{26,35}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const REC_STATUSES = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const;
export const COBR_STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;
const SOLICREC_STATUSES = ['CRIADA', 'ENVIADA', 'RECEBIDA', 'REJEITADA', 'ACEITA', 'EXPIRADA', 'CANCELADA'] as const;
const TENTATIVA_STATUSES = ['SOLICITADA', 'AGENDADA', 'PAGA', 'CANCELADA', 'REJEITADA', 'EXPIRADA'] as const;

// An atualizacao history: the standard names the status `status`, its rec examples `nome`; both are read. Entries
// with an unknown status or no time are dropped (a history is information, never a decision).
function history<S extends string>(v: unknown, allowed: readonly S[]): Atualizacao<S>[] {
  return list(v).flatMap((e) => {
    const o = (e && typeof e === 'object' ? e : {}) as Obj;
    const status = o.status ?? o.nome;
    return typeof status === 'string' && allowed.includes(status as S) && typeof o.data === 'string'
      ? [{ status: status as S, data: o.data }]
      : [];
  });
}

export function parseLocRec(ctx: Ctx, body: unknown): LocRec {
  const l = object(ctx, body, 'locrec');
  if (!Number.isSafeInteger(l.id)) throw bad(ctx, 'locrec.id missing');
  if (typeof l.location !== 'string' || !l.location) throw bad(ctx, 'locrec.location missing');
  return l as unknown as LocRec;
}

export function parseSolicRec(ctx: Ctx, body: unknown): SolicRec {
  const s = object(ctx, body, 'solicrec');
  if (typeof s.idSolicRec !== 'string' || !s.idSolicRec) throw bad(ctx, 'idSolicRec missing');
  const status = oneOf<SolicRecStatus>(ctx, s.status, SOLICREC_STATUSES, 'solicrec.status');
  return { ...(s as unknown as SolicRec), status, atualizacao: history(s.atualizacao, SOLICREC_STATUSES) };
}

export function parseRec(ctx: Ctx, body: unknown): Rec {
  const r = object(ctx, body, 'rec');
  if (typeof r.idRec !== 'string' || !REC_ID.test(r.idRec)) throw bad(ctx, `idRec: ${JSON.stringify(r.idRec)}`);
  const status = oneOf<RecStatus>(ctx, r.status, REC_STATUSES, 'rec.status');
  const loc = r.loc === undefined || r.loc === null ? undefined : parseLocRec(ctx, r.loc);
  return {
    ...(r as unknown as Rec),
    status,
    loc,
    atualizacao: history(r.atualizacao, REC_STATUSES),
    solicitacao: list(r.solicitacao).map((s) => parseSolicRec(ctx, s)),
  };
}

function parseTentativa(ctx: Ctx, body: unknown): Tentativa {
  const t = object(ctx, body, 'tentativa');
  if (typeof t.dataLiquidacao !== 'string' || !DATE.test(t.dataLiquidacao)) throw bad(ctx, 'dataLiquidacao');
  const status = oneOf<TentativaStatus>(ctx, t.status, TENTATIVA_STATUSES, 'tentativa.status');
  const rejeicao = t.rejeicao && typeof t.rejeicao === 'object' ? (t.rejeicao as Tentativa['rejeicao']) : undefined;
  return {
    ...(t as unknown as Tentativa),
    status,
    endToEndId: typeof t.endToEndId === 'string' ? t.endToEndId : undefined,
    rejeicao: typeof rejeicao?.codigo === 'string' ? rejeicao : undefined,
    atualizacao: history(t.atualizacao, TENTATIVA_STATUSES),
  };
}

export function parseCobR(ctx: Ctx, body: unknown): CobR {
  const c = object(ctx, body, 'cobr');
  if (typeof c.txid !== 'string' || !TXID.test(c.txid)) throw bad(ctx, 'cobr.txid');
  if (typeof c.idRec !== 'string' || !REC_ID.test(c.idRec)) throw bad(ctx, 'cobr.idRec');
  const status = oneOf<CobRStatus>(ctx, c.status, COBR_STATUSES, 'cobr.status');
  const calendario = object(ctx, c.calendario, 'cobr.calendario');
  if (typeof calendario.dataDeVencimento !== 'string' || !DATE.test(calendario.dataDeVencimento))
    throw bad(ctx, 'cobr.calendario.dataDeVencimento');
  const valor = object(ctx, c.valor, 'cobr.valor');
  let amount: number;
  try {
    amount = fromWire(valor.original);
  } catch (err) {
    throw bad(ctx, `cobr.valor.original: ${(err as Error).message}`);
  }
  return {
    ...(c as unknown as CobR),
    status,
    amount,
    atualizacao: history(c.atualizacao, COBR_STATUSES),
    tentativas: list(c.tentativas).map((t) => parseTentativa(ctx, t)),
  };
}
