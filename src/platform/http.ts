// HTTP plumbing: request logging, security headers, 404 and the error handler.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { HttpError, TooManyRequestsError } from './errors.ts';
import { errorBody } from './error-codes.ts';
import { isTransientConflict } from './transaction.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Probes and scrapes arrive every few seconds: one line each would drown the request log (their failures still log).
const UNLOGGED = new Set(['/healthz', '/health', '/readyz', '/metrics']);
// Secret path segments: the PSP's webhook URL carries APIPIX_WEBHOOK_TOKEN (routes match case-insensitively).
const SECRET_SEGMENTS = [/^(\/+v1\/+acquirer\/+apipix\/+)[^/?#]+/i];

// The URL as logs may show it: every secret segment replaced, whatever the request's outcome.
function loggableUrl(url: string | undefined): string | undefined {
  return url && SECRET_SEGMENTS.reduce((u, pattern) => u.replace(pattern, '$1[redacted]'), url);
}

// Logs one line per request with its id; the request id is taken from the caller when it is sane.
export function requestLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    serializers: {
      // every line logged through req.log (errors too) carries this view of the request
      req: (req) => ({ id: req.id, method: req.method, url: loggableUrl(req.url), remoteAddress: req.remoteAddress }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req) => UNLOGGED.has(req.url ?? '') },
  });
}

// helmet's headers, with `upgrade-insecure-requests` only for a request that came over https (req.secure, which
// reads X-Forwarded-Proto from the proxies `trust proxy` trusts): sent over plain http to any host but localhost, it
// makes the browser ask https for the page's own scripts and styles, and /docs stays blank. Cross-Origin-Opener-Policy
// is left out over http too: browsers ignore it there, with an error in the console.
export function securityHeaders(): RequestHandler {
  const overHttps = helmet();
  const overHttp = helmet({
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    crossOriginOpenerPolicy: false,
  });
  return (req, res, next) => (req.secure ? overHttps : overHttp)(req, res, next);
}

export const notFoundRoute: RequestHandler = (_req, res) => {
  res.status(404).json(errorBody('route_not_found', 'Rota não encontrada'));
};

export const CONFLICT_RETRY = 'Conflito com uma operação simultânea; nada foi alterado, tente novamente';

// One place turns errors into JSON (`errorBody`: a code of error-codes.ts, the message): domain errors keep their
// status and code; body-parser errors keep their status; a deadlock or serialization failure is 409; the rest is 500.
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (err instanceof HttpError) {
    if (err instanceof TooManyRequestsError) res.setHeader('retry-after', String(err.retryAfterSeconds));
    res.status(err.status).json(errorBody(err.code, err.message, err.errors ? { errors: err.errors } : {}));
    return;
  }
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') {
    res.status(400).json(errorBody('malformed_json', 'JSON malformado no corpo da requisição'));
    return;
  }
  if (type === 'entity.too.large') {
    res.status(413).json(errorBody('payload_too_large', 'Corpo da requisição muito grande'));
    return;
  }
  const status = (err as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.status(status).json(errorBody('invalid_request', 'Requisição inválida'));
    return;
  }
  if (isTransientConflict(err)) {
    // a transaction that lost to concurrent ones on every attempt (transaction.ts): nothing was kept, asking again works
    req.log.warn({ err }, 'transaction conflict on every attempt');
    res.status(409).json(errorBody('transaction_conflict', CONFLICT_RETRY));
    return;
  }
  req.log.error({ err }, 'unhandled error');
  res.status(500).json(errorBody('internal_error', 'Erro interno', { requestId: String(req.id) }));
};
