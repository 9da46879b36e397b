// PSP answers checked where our code depends on them and given their amounts in centavos. A 2xx answer that breaks
// the standard means the outcome is unknown: ApiPixError 'unavailable', so callers retry idempotently or reconcile.
import { ApiPixError } from './errors.ts';
import { fromJsonNumber, fromWire } from './money.ts';
import type {
  Cob,
  CobGerada,
  CobV,
  CobVGerada,
  Devolucao,
  DevolucaoWire,
  Envio,
  EnvioWire,
  Infracao,
  InfracaoWire,
  Paginacao,
  Pix,
  PixComponents,
  PixWire,
  WebhookCompleto,
} from './types.ts';

type Ctx = { call: string; status: number };

function bad(ctx: Ctx, detail: string): ApiPixError {
  return new ApiPixError({ call: ctx.call, status: ctx.status, kind: 'unavailable', detail });
}

function object(ctx: Ctx, body: unknown, what: string): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad(ctx, `${what} is not an object`);
  return body as Record<string, unknown>;
}

function text(ctx: Ctx, o: Record<string, unknown>, field: string): string {
  if (typeof o[field] !== 'string' || !o[field]) throw bad(ctx, `${field} missing`);
  return o[field];
}

function cents(ctx: Ctx, valor: unknown, field: string, read: (v: unknown) => number = fromWire): number {
  try {
    return read(valor);
  } catch (err) {
    throw bad(ctx, `${field}: ${(err as Error).message}`);
  }
}

export function parseDevolucao(ctx: Ctx, body: unknown): Devolucao {
  const d = object(ctx, body, 'devolucao');
  text(ctx, d, 'id');
  text(ctx, d, 'status');
  return { ...(d as DevolucaoWire), amount: cents(ctx, d.valor, 'devolucao.valor') };
}

// componentesValor -> centavos (absent parts 0); undefined without `original` (not a charge's payment: saque), and
// when it breaks the standard: the amount alone then decides, as for a PSP that does not report the parts (a PSP's
// odd breakdown must not keep its money from being settled).
const PARTS = { original: 'original', abatimento: 'rebate', desconto: 'discount', multa: 'fine', juros: 'interest' };
function components(ctx: Ctx, value: unknown): PixComponents | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    const c = object(ctx, value, 'componentesValor');
    if (c.original === undefined) return undefined;
    const out: Record<string, number> = {};
    for (const [wire, part] of Object.entries(PARTS)) {
      out[part] =
        c[wire] === undefined ? 0 : cents(ctx, object(ctx, c[wire], wire).valor, `componentesValor.${wire}.valor`);
    }
    return out as PixComponents;
  } catch {
    return undefined;
  }
}

// A Pix. Its `horario` is kept as the PSP wrote it, whatever it is (settlement reads it, or falls back on the time it
// learnt of the payment): a PSP's odd time must not keep its money from being settled.
export function parsePix(ctx: Ctx, body: unknown): Pix {
  const p = object(ctx, body, 'pix');
  text(ctx, p, 'endToEndId');
  const devolucoes = Array.isArray(p.devolucoes) ? p.devolucoes.map((d) => parseDevolucao(ctx, d)) : undefined;
  const horario = typeof p.horario === 'string' ? p.horario : '';
  return {
    ...(p as PixWire),
    horario,
    amount: cents(ctx, p.valor, 'pix.valor'),
    devolucoes,
    components: components(ctx, p.componentesValor),
  };
}

const E2EID = /^[a-zA-Z0-9]{32}$/;

// A Pix of a listing: one that breaks the standard does not hide the rest of its page. With a usable endToEndId it is
// returned `unreadable` (amount 0), to be asked about on its own (GET /v2/pix/{e2eid}); without one, null (skipped).
export function parsePixInList(ctx: Ctx, body: unknown): Pix | null {
  try {
    return parsePix(ctx, body);
  } catch (err) {
    const e2eid = (body as { endToEndId?: unknown } | null)?.endToEndId;
    if (typeof e2eid !== 'string' || !E2EID.test(e2eid)) return null;
    return { endToEndId: e2eid, valor: '', horario: '', amount: 0, unreadable: (err as Error).message };
  }
}

export function parseCob(ctx: Ctx, body: unknown): Cob {
  const c = object(ctx, body, 'cob');
  text(ctx, c, 'txid');
  text(ctx, c, 'status');
  const valor = object(ctx, c.valor, 'valor');
  const pix = Array.isArray(c.pix) ? c.pix.map((p) => parsePix(ctx, p)) : undefined;
  return { ...(c as CobGerada), amount: cents(ctx, valor.original, 'valor.original'), pix };
}

export function parseCobV(ctx: Ctx, body: unknown): CobV {
  const c = object(ctx, body, 'cobv');
  text(ctx, c, 'txid');
  text(ctx, c, 'status');
  const valor = object(ctx, c.valor, 'valor');
  const pix = Array.isArray(c.pix) ? c.pix.map((p) => parsePix(ctx, p)) : undefined;
  return { ...(c as CobVGerada), amount: cents(ctx, valor.original, 'valor.original'), pix };
}

export function parseEnvio(ctx: Ctx, body: unknown): Envio {
  const e = object(ctx, body, 'envio');
  text(ctx, e, 'idEnvio');
  text(ctx, e, 'status');
  const e2eId = typeof e.e2eId === 'string' ? e.e2eId : typeof e.endToEndId === 'string' ? e.endToEndId : null;
  return { ...(e as EnvioWire), amount: cents(ctx, e.valor, 'envio.valor'), e2eId };
}

export function parseInfracao(ctx: Ctx, body: unknown): Infracao {
  const i = object(ctx, body, 'infracao');
  text(ctx, i, 'idInfracao');
  text(ctx, i, 'endToEndId');
  text(ctx, i, 'status');
  // Efí sends a JSON number; a PSP that follows the standard's habit sends "10.50": both are read exactly.
  const read = typeof i.valor === 'string' ? fromWire : fromJsonNumber;
  return { ...(i as InfracaoWire), amount: cents(ctx, i.valor, 'infracao.valor', read) };
}

export function parseWebhook(ctx: Ctx, body: unknown): WebhookCompleto {
  const w = object(ctx, body, 'webhook');
  text(ctx, w, 'webhookUrl');
  return w as WebhookCompleto;
}

export function parsePage<T>(ctx: Ctx, body: unknown, listField: string, parse: (ctx: Ctx, item: unknown) => T) {
  const b = object(ctx, body, 'answer');
  const paginacao = object(ctx, object(ctx, b.parametros, 'parametros').paginacao, 'paginacao') as Paginacao;
  if (!Number.isInteger(paginacao.paginaAtual) || !Number.isInteger(paginacao.quantidadeDePaginas)) {
    throw bad(ctx, 'paginacao without paginaAtual/quantidadeDePaginas');
  }
  const list = b[listField] ?? []; // the standard omits the list of an empty page
  if (!Array.isArray(list)) throw bad(ctx, `${listField} is not a list`);
  return { paginacao, items: list.map((item) => parse(ctx, item)) };
}
