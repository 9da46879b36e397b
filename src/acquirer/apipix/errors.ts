// The API Pix adapter's errors: what a PSP answer or its absence means for a retry.
import type { Problema } from './types.ts';
import { truncateText } from '../../pix/text.ts';

// unavailable: the outcome is unknown or the PSP could not answer (network, timeout, 5xx, 429 after the retries, a 2xx
//   body that is not the standard's): the caller may try again, idempotently.
// refused: the PSP answered a definite no (4xx other than 404). not_found: 404.
export type ApiPixErrorKind = 'unavailable' | 'refused' | 'not_found';

export type ApiPixErrorInit = {
  call: string; // "PUT /v2/cob/{txid}": the route template, never a header or the token
  status: number | null;
  kind: ApiPixErrorKind;
  problem?: Problema;
  code?: string; // ECONNRESET, ETIMEDOUT, ... when there was no HTTP answer
  detail?: string;
};

// Plain fields (Node's type stripping rejects parameter properties); no `cause`, since got's errors carry the
// request options and so the bearer token.
export class ApiPixError extends Error {
  readonly call: string;
  readonly status: number | null;
  readonly kind: ApiPixErrorKind;
  readonly problem: Problema | undefined;
  readonly code: string | undefined;

  constructor(init: ApiPixErrorInit) {
    const what = init.status === null ? (init.code ?? 'network error') : `HTTP ${init.status}`;
    const why = init.problem?.detail ?? init.problem?.title ?? init.detail;
    super(`API Pix ${init.call}: ${what}${why ? ` (${why})` : ''}`);
    this.name = 'ApiPixError';
    this.call = init.call;
    this.status = init.status;
    this.kind = init.kind;
    this.problem = init.problem;
    this.code = init.code;
  }
}

export function kindOfStatus(status: number): ApiPixErrorKind {
  if (status === 404) return 'not_found';
  if (status === 429 || status >= 500) return 'unavailable';
  return 'refused';
}

// A PSP error body is problem+json (Efí's own routes answer { nome, mensagem }, read as title and detail); anything
// else (HTML from a proxy) is not kept.
export function toProblem(body: unknown): Problema | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? truncateText(v, 500) : undefined);
  const problem: Problema = {
    type: text(b.type),
    title: text(b.title) ?? text(b.nome),
    status: typeof b.status === 'number' ? b.status : undefined,
    detail: text(b.detail) ?? text(b.mensagem),
    correlationId: text(b.correlationId),
  };
  if (Array.isArray(b.violacoes)) problem.violacoes = b.violacoes.slice(0, 20) as Problema['violacoes'];
  return problem;
}
