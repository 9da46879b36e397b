// The transport under the API Pix client: got over mTLS, the OAuth2 token, retries of idempotent calls, and every
// failure turned into an ApiPixError. Nothing here knows a route's meaning.
import { Agent } from 'node:https';
import got, { HTTPError, ParseError, RequestError, type RetryObject } from 'got';
import { ApiPixError, kindOfStatus, toProblem } from './errors.ts';
import { createTokenCache } from './token.ts';

export type ApiPixLogger = {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
};

export type ApiPixHttpOptions = {
  baseUrl: string; // e.g. https://pix.example.com, without the trailing /v2
  clientId: string;
  clientSecret: string;
  cert: string; // PEM client certificate (mTLS)
  key: string; // its PEM private key
  ca?: string; // PEM CA to trust instead of the system's (a PSP homologation environment, the stub)
  timeoutMs?: number; // one attempt, from socket to last byte (default 10 s)
  retry?: { limit?: number; baseDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
  tokenMarginMs?: number; // renew the token this long before it expires (default 60 s)
  logger?: ApiPixLogger;
};

export type CallSpec = {
  call: string; // the route template, "PUT /v2/cob/{txid}": what errors and logs name
  method: 'GET' | 'PUT' | 'PATCH' | 'POST';
  path: string; // relative to baseUrl, each segment already encoded
  json?: unknown;
  searchParams?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  idempotent: boolean; // retried on network errors, 5xx and 429; a POST never is
};

export type ApiPixHttp = { send(spec: CallSpec): Promise<{ status: number; body: unknown }>; close(): void };

const silent: ApiPixLogger = { warn() {}, debug() {} };
// 429 and every 5xx: the PSP may answer the same request differently in a moment.
const RETRY_STATUSES = [429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];

const definedOnly = (o: Record<string, string | number | undefined>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, string | number>;

export function toApiPixError(err: unknown, call: string): ApiPixError {
  if (err instanceof ApiPixError) return err;
  if (err instanceof HTTPError) {
    const status = err.response.statusCode;
    return new ApiPixError({ call, status, kind: kindOfStatus(status), problem: toProblem(err.response.body) });
  }
  if (err instanceof ParseError) {
    return new ApiPixError({
      call,
      status: err.response.statusCode,
      kind: 'unavailable',
      detail: 'answer is not JSON',
    });
  }
  if (err instanceof RequestError) return new ApiPixError({ call, status: null, kind: 'unavailable', code: err.code });
  throw err; // a bug of ours, not a PSP failure
}

export function createApiPixHttp(opts: ApiPixHttpOptions): ApiPixHttp {
  const log = opts.logger ?? silent;
  const agent = new Agent({ keepAlive: true }); // one TLS handshake per socket, not per call
  const { limit = 2, baseDelayMs = 250, maxDelayMs = 5_000, maxRetryAfterMs = 30_000 } = opts.retry ?? {};
  const http = got.extend({
    prefixUrl: opts.baseUrl.replace(/\/+$/, ''),
    agent: { https: agent },
    https: { certificate: opts.cert, key: opts.key, certificateAuthority: opts.ca },
    timeout: { request: opts.timeoutMs ?? 10_000 },
    responseType: 'json',
    retry: { limit: 0 },
    hooks: {
      beforeRetry: [
        (error, retryCount) => {
          const { call } = error.options.context as { call?: string };
          log.warn({ call, retryCount, status: error.response?.statusCode, code: error.code }, 'API Pix call retried');
        },
      ],
    },
  });
  const retry = {
    limit,
    methods: ['GET' as const, 'PUT' as const, 'PATCH' as const],
    statusCodes: RETRY_STATUSES,
    maxRetryAfter: maxRetryAfterMs,
    // got computes 0 when the call must not be retried and honours Retry-After up to maxRetryAfter itself.
    calculateDelay: ({ attemptCount, retryAfter, computedValue }: RetryObject) => {
      if (computedValue === 0 || retryAfter) return computedValue;
      return Math.min(baseDelayMs * 2 ** (attemptCount - 1), maxDelayMs) * (0.5 + Math.random() / 2); // jitter
    },
  };
  const basic = `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64')}`;

  const tokens = createTokenCache({
    marginMs: opts.tokenMarginMs,
    async issue() {
      const call = 'POST /oauth/token';
      try {
        // Never retried: a lost answer only costs a new token, and a refusal will not change.
        const res = await http.post('oauth/token', {
          json: { grant_type: 'client_credentials' },
          headers: { authorization: basic },
          context: { call },
        });
        const body = res.body as { access_token?: unknown; expires_in?: unknown };
        const expiresIn = Number(body.expires_in);
        if (typeof body.access_token !== 'string' || !body.access_token || !(expiresIn > 0)) {
          throw new ApiPixError({
            call,
            status: res.statusCode,
            kind: 'unavailable',
            detail: 'token answer without access_token/expires_in',
          });
        }
        log.debug({ call, expiresIn }, 'API Pix token issued');
        return { accessToken: body.access_token, expiresIn };
      } catch (err) {
        throw toApiPixError(err, call);
      }
    },
  });

  async function send(spec: CallSpec): Promise<{ status: number; body: unknown }> {
    let token = await tokens.get();
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await http(spec.path, {
          method: spec.method,
          json: spec.json,
          searchParams: spec.searchParams && definedOnly(spec.searchParams),
          headers: { ...spec.headers, authorization: `Bearer ${token}` },
          retry: spec.idempotent ? retry : { limit: 0 },
          context: { call: spec.call },
        });
        return { status: res.statusCode, body: res.body };
      } catch (err) {
        // A refused token (revoked, clock skew) gets exactly one fresh token and one more try.
        if (attempt === 0 && err instanceof HTTPError && err.response.statusCode === 401) {
          tokens.invalidate(token);
          log.debug({ call: spec.call }, 'API Pix token refused; renewing');
          token = await tokens.get();
          continue;
        }
        throw toApiPixError(err, spec.call);
      }
    }
  }

  return { send, close: () => agent.destroy() };
}
