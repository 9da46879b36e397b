// The API's rate limits: per merchant after authentication, per address before it.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { AUTH_MESSAGES, HttpError } from './errors.ts';
import { errorBody } from './error-codes.ts';
import { pgConnection } from './pg-ssl.ts';

export const RATE_LIMIT_MESSAGE = 'Muitas requisições, tente novamente em instantes';
const WINDOW_SECONDS = 60;

type Limiter = RateLimiterPostgres;

export type RateLimits = {
  // after authentication: one budget per merchant (every key and token of it), or per user without a merchant
  perCredential: RequestHandler;
  // POST /v1/auth/login and /register: one budget per client IP and one per e-mail
  auth: RequestHandler;
  // wraps a route's credential check: a credential refused too often (per client IP, and per credential as
  // `keyOf` names it) is answered 429 instead of 401; a credential that opens the API is always served
  guardCredentials: (check: RequestHandler, keyOf?: (req: Request) => string | null) => RequestHandler;
  // public pages without a credential (the payer's payment page and its status): one budget per client IP, per process
  publicPerIp: RequestHandler;
};

const pass: RequestHandler = (_req, _res, next) => next();

// A credential that was given and refused (bad JWT, unknown or inactive API key, bad acquirer signature or token); a
// missing Authorization header is not a guess.
const credentialFailed = (err: unknown) =>
  err instanceof HttpError && err.status === 401 && err.message !== AUTH_MESSAGES.missingHeader;

/**
 * Limits counted in PostgreSQL (rate-limiter-flexible, table `rate_limits` created by a migration), so every API
 * process and dyno spends one budget. When the database does not answer, each process falls back to counting in memory
 * (the library's insurance limiter) rather than failing the request.
 */
export function createRateLimits(config: Config, logger: Logger): RateLimits {
  if (!config.rateLimitEnabled)
    return { perCredential: pass, auth: pass, guardCredentials: (check) => check, publicPerIp: pass };
  // Its own small pool: a limiter query never waits behind the ORM's transactions; timeouts bound a database outage.
  const { url, ssl } = pgConnection(config.databaseUrl);
  const pool = new pg.Pool({
    connectionString: url,
    ssl,
    max: 3,
    application_name: 'rate-limits',
    connectionTimeoutMillis: 1000,
    query_timeout: 1000,
    allowExitOnIdle: true,
  });
  pool.on('error', (err) => logger.warn({ err }, 'rate limit connection lost'));
  // The library names its statements (prepared once per connection). Behind a transaction pooler the next transaction
  // may get another server connection, where the name is unknown (or taken): every query would fail over to the
  // in-memory insurance, a budget per process. There, the statements go unnamed.
  const store =
    config.databasePoolMode === 'transaction'
      ? { query: (q: pg.QueryConfig) => pool.query({ text: q.text, values: q.values }) }
      : pool;

  const limiter = (keyPrefix: string, points: number): Limiter =>
    new RateLimiterPostgres({
      storeClient: store,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix,
      points,
      duration: WINDOW_SECONDS,
      // a key over its budget is refused from memory until its window ends: no query per refused request
      inMemoryBlockOnConsumed: points + 1,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS }),
    });

  const consume = (l: Limiter, key: string | null) => (key === null ? Promise.resolve() : l.consume(key));
  const handle =
    (run: (req: Request) => Promise<unknown>): RequestHandler =>
    (req, res, next) => {
      run(req).then(
        () => next(),
        (err: unknown) => {
          if (err instanceof RateLimiterRes) return tooMany(res, err);
          // neither the database nor the memory fallback answered: let the request through rather than fail it
          logger.warn({ err }, 'rate limiter failed; request let through');
          next();
        },
      );
    };

  const api = limiter('api', config.rateLimitApiPerMinute);
  const byIp = limiter('auth-ip', config.rateLimitAuthIpPerMinute);
  const byEmail = limiter('auth-email', config.rateLimitAuthEmailPerMinute);
  // a request that falls through one authenticated router into another is counted once
  const counted = new WeakSet<Request>();
  const credentialOf = (req: Request) => {
    if (counted.has(req)) return null;
    counted.add(req);
    return req.user?.merchantId ?? req.user?.userId ?? null;
  };
  // Refused credentials are counted twice: per client IP and per credential (its SHA-256). An IP over its budget gets
  // 429 instead of 401 for every credential it sends that is refused (guessing, a flood of invalid tokens), but a
  // credential that opens the API is still checked, and served: one bad integration behind a shared NAT never locks
  // out the others. A credential over its own budget (a revoked key hammering from anywhere) is 429 without a check.
  const failuresByIp = limiter('auth-fail-ip', config.rateLimitAuthFailuresPerMinute);
  const failuresByCredential = limiter('auth-fail-credential', config.rateLimitAuthFailuresPerMinute);
  // Credentials this process saw go over their failure budget, until their window ends: refused without a check or a
  // query (another process learns it at its next failure of that credential). Only a refused credential is ever here:
  // one that opens the API cannot be guessed, so it never fails.
  const refused = new RateLimiterMemory({ keyPrefix: 'auth-fail-refused', points: 1, duration: WINDOW_SECONDS });
  // Counts a refused credential against its IP and itself; the refusal of whichever went over its budget (the
  // credential's first: it is remembered), or none. A limiter that failed lets the request have its 401.
  const countFailure = async (ip: string, credential: string | null): Promise<RateLimiterRes | undefined> => {
    const [byIp, byCredential] = await Promise.allSettled([
      failuresByIp.consume(ip),
      credential === null ? null : failuresByCredential.consume(credential),
    ]);
    const over = (r: PromiseSettledResult<unknown>): RateLimiterRes | undefined => {
      if (r.status === 'fulfilled' || r.reason instanceof RateLimiterRes)
        return r.status === 'fulfilled' ? undefined : r.reason;
      logger.warn({ err: r.reason }, 'rate limiter failed; credential failure not counted');
      return undefined;
    };
    const [ipOver, credentialOver] = [over(byIp), over(byCredential)];
    if (credentialOver) void refused.block(credential!, Math.max(1, Math.ceil(credentialOver.msBeforeNext / 1000)));
    return credentialOver ?? ipOver;
  };
  const guardCredentials =
    (check: RequestHandler, keyOf: (req: Request) => string | null = () => null): RequestHandler =>
    (req, res, next) => {
      const ip = req.ip ?? '';
      const credential = keyOf(req);
      (credential === null ? Promise.resolve(null) : refused.get(credential)).then(
        (seen) => {
          if (seen && seen.consumedPoints > 1) return tooMany(res, seen);
          check(req, res, (err?: unknown) => {
            if (!credentialFailed(err)) return next(err);
            void countFailure(ip, credential).then((rejected) => (rejected ? tooMany(res, rejected) : next(err)));
          });
        },
        (err: unknown) => next(err),
      );
    };
  // Counted in this process's memory, not in PostgreSQL: a payer's page polls its status every 2 s, and a database write
  // per poll would cost more than the indexed read it guards. N processes allow N budgets; still bounded per IP.
  const publicLimiter = new RateLimiterMemory({
    keyPrefix: 'public-ip',
    points: config.rateLimitPublicPerMinute,
    duration: WINDOW_SECONDS,
  });
  // Refusals go through next(err), so a page renders its own 429 (HTML) and a JSON route the usual body.
  const publicPerIp: RequestHandler = (req, res, next) => {
    publicLimiter.consume(req.ip ?? '').then(
      () => next(),
      (rejected: unknown) => {
        if (!(rejected instanceof RateLimiterRes)) return next();
        res.setHeader('retry-after', String(Math.max(1, Math.ceil(rejected.msBeforeNext / 1000))));
        next(new HttpError(429, RATE_LIMIT_MESSAGE, 'rate_limited'));
      },
    );
  };
  return {
    guardCredentials,
    publicPerIp,
    perCredential: handle((req) => consume(api, credentialOf(req))),
    auth: handle(async (req) => {
      await consume(byIp, req.ip ?? null);
      await consume(byEmail, emailKey(req));
    }),
  };
}

// The bearer credential of a request, as its failure budget's key (a SHA-256: no credential stored in the counters);
// `Bearer` in any case with any spaces, as the authenticator reads it. Null without an Authorization header.
export function bearerCredential(req: Request): string | null {
  const header = req.headers.authorization?.trim();
  if (!header) return null;
  const token = /^bearer[ \t]+(\S+)$/i.exec(header)?.[1] ?? header;
  return createHash('sha256').update(token).digest('base64url');
}

// Hashed: fixed length for the key column, and no e-mail address stored in the counters.
function emailKey(req: Request): string | null {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  if (typeof email !== 'string' || !email.trim()) return null;
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
}

function tooMany(res: Response, rejected: RateLimiterRes): void {
  res.setHeader('retry-after', String(Math.max(1, Math.ceil(rejected.msBeforeNext / 1000))));
  res.status(429).json(errorBody('rate_limited', RATE_LIMIT_MESSAGE));
}
