// The configuration: every environment variable read and checked, once, at start.
import { developmentKeyring, NO_KEYS, parseKeyring, SecretKeyError } from './secrets.ts';

// The one place that reads the environment. Every process calls loadConfig() once at start.
export type Config = ReturnType<typeof loadConfig>;

const DEV_JWT_SECRET = 'dev-only-insecure-jwt-secret-do-not-use-in-production';
const DEV_ACQUIRER_SECRET = 'dev-only-insecure-acquirer-secret-do-not-use';

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * Express's `trust proxy`: which X-Forwarded-For entries may name the client (its IP keys the per-IP limits and the
 * logs). Unset: one hop on Heroku (DYNO is set; its router appends the address it saw), none elsewhere (the socket's
 * address). A setting that lets a client choose its own IP is warned about at start (docs/deploying.md).
 */
function trustProxy(env: NodeJS.ProcessEnv): {
  trustProxy: number | boolean | string;
  trustProxyWarning: string | null;
} {
  const raw = env.TRUST_PROXY?.trim();
  const platformHops = env.DYNO ? 1 : 0;
  if (!raw) return { trustProxy: platformHops, trustProxyWarning: null };
  const value = raw === 'true' || raw === 'false' ? raw === 'true' : /^\d+$/.test(raw) ? Number(raw) : raw;
  let warning: string | null = null;
  if (value === true) {
    warning = 'TRUST_PROXY=true takes the first X-Forwarded-For entry, which any client writes';
  } else if (typeof value === 'number' && value > platformHops) {
    warning =
      `TRUST_PROXY=${value} trusts ${value} proxy hop(s)${platformHops ? ' (Heroku has 1)' : ' and no known platform was detected'}:` +
      ' right only if every request passes through exactly that many proxies; a client reaching the API directly' +
      ' chooses its own IP with X-Forwarded-For';
  } else if ((value === false || value === 0) && platformHops) {
    warning = `TRUST_PROXY=${raw} behind Heroku's router: every client gets the router's IP and shares one per-IP budget`;
  }
  return { trustProxy: value, trustProxyWarning: warning };
}

// Largest JSON body the API parses (bytes, or with a kb/mb unit as body-parser reads it).
function bodyLimit(raw: string | undefined): string {
  if (raw === undefined || raw === '') return '64kb';
  if (!/^\d+(b|kb|mb)?$/i.test(raw))
    throw new ConfigError(`BODY_LIMIT must be a size such as 64kb or 1mb, got "${raw}"`);
  return raw;
}

function poolMode(raw: string | undefined): 'session' | 'transaction' {
  if (raw === undefined || raw === '' || raw === 'session' || raw === 'transaction') return raw || 'session';
  throw new ConfigError(`DATABASE_POOL_MODE must be session or transaction, got "${raw}"`);
}

// What each entry point cannot run without when development defaults are off (docs/deploying.md, "Secrets, NODE_ENV and what each process needs"):
// api signs JWTs, checks the acquirer's HMAC, seals webhook secrets and serves /metrics; webhooks opens the secrets
// to sign deliveries; worker needs none of them; a tool (migrate, ops, npm start) checks what it uses itself.
export type Role = 'api' | 'worker' | 'webhooks' | 'tool';
const SECRETS_OF: Record<Role, readonly string[]> = {
  api: ['JWT_SECRET', 'ACQUIRER_WEBHOOK_SECRET', 'SECRETS_KEYS'],
  worker: [],
  webhooks: ['SECRETS_KEYS'],
  tool: [],
};
const STRONG = 'at least 32 random characters, e.g. `openssl rand -base64 48`';

export function loadConfig(env: NodeJS.ProcessEnv = process.env, role: Role = 'api') {
  // Fail closed: only an explicit development or test uses the development defaults; unset, staging, anything else
  // gets production's protections.
  const nodeEnv = env.NODE_ENV ?? '';
  const production = nodeEnv === 'production';
  const strict = nodeEnv !== 'development' && nodeEnv !== 'test';
  const acquirer = env.ACQUIRER || 'sandbox';
  // The secrets written in this file are for a developer's sandbox: never with a real PSP, whatever NODE_ENV says.
  const devSecrets = !strict && acquirer !== 'apipix';
  const missing: string[] = [];
  const problems: string[] = [];
  const given = (name: string) => !!env[name]?.trim();
  const need = (name: string) => {
    if (!given(name)) missing.push(name);
  };

  const metricsPort = env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 1) : null;
  if (strict && role !== 'tool') need('DATABASE_URL');
  if (!devSecrets) SECRETS_OF[role].forEach(need);
  // /metrics tells anyone the volumes and the queues: under production's protections it is never public
  if (strict && (role === 'api' || (role !== 'tool' && metricsPort))) need('METRICS_TOKEN');
  const secret = (name: string, dev: string) => {
    const value = env[name] || (devSecrets ? dev : '');
    if (value && !devSecrets && (value === dev || value.length < 32))
      problems.push(`${name} is too weak: use ${STRONG}`);
    return value;
  };
  const jwtSecret = secret('JWT_SECRET', DEV_JWT_SECRET);
  const acquirerWebhookSecret = secret('ACQUIRER_WEBHOOK_SECRET', DEV_ACQUIRER_SECRET);
  const metricsToken = env.METRICS_TOKEN || null;
  if (metricsToken && strict && metricsToken.length < 32) problems.push(`METRICS_TOKEN is too weak: use ${STRONG}`);
  let secrets = devSecrets ? developmentKeyring() : NO_KEYS;
  if (given('SECRETS_KEYS')) {
    try {
      secrets = parseKeyring(env.SECRETS_KEYS!, !devSecrets);
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      problems.push(err.message);
    }
  }

  if (acquirer !== 'sandbox' && acquirer !== 'apipix') {
    problems.push(`ACQUIRER must be "sandbox" or "apipix", got "${acquirer}"`);
  } else if (production && acquirer === 'sandbox') {
    problems.push(
      'ACQUIRER=sandbox is refused when NODE_ENV=production (the sandbox mints balances): set ACQUIRER=apipix',
    );
  }
  // a tool (migrate, ops) runs without the PSP's settings; the one command that calls the PSP asks for them
  const psp = { missing: [] as string[], problems: [] as string[] };
  let apipix = acquirer === 'apipix' ? apipixConfig(env, psp.missing, psp.problems) : null;
  if (role !== 'tool') {
    missing.push(...psp.missing);
    problems.push(...psp.problems);
  } else if (psp.missing.length || psp.problems.length) apipix = null;
  if (missing.length || problems.length) throw new ConfigError(refusal(env, strict, missing, problems));

  return {
    nodeEnv,
    production,
    strict,
    // webhook URLs must be https and resolve to public addresses, unless a non-production environment opts out
    publicWebhooksOnly: strict && !(bool(env, 'ALLOW_PRIVATE_WEBHOOK_URLS', false) && !production),
    ...trustProxy(env),
    bodyLimit: bodyLimit(env.BODY_LIMIT),
    // browser origins allowed to call the API (CORS); none by default, since merchants call it from their servers
    corsOrigins: (env.CORS_ORIGINS || '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    port: int(env, 'PORT', 3000),
    databaseUrl: env.DATABASE_URL || '',
    // `transaction`: DATABASE_URL is a pooler in transaction mode (PgBouncer…), where no session outlives a transaction
    databasePoolMode: poolMode(env.DATABASE_POOL_MODE),
    // a direct connection: migrations, and the worker's and daemon's LISTEN when DATABASE_URL is a transaction pooler
    databaseDirectUrl: env.DATABASE_DIRECT_URL || null,
    jwtSecret,
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    acquirer: acquirer as 'sandbox' | 'apipix',
    acquirerWebhookSecret,
    apipix,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${int(env, 'PORT', 3000)}`).replace(/\/+$/, ''),
    rateLimitEnabled: bool(env, 'RATE_LIMIT_ENABLED', true),
    // shared by every process through PostgreSQL: per merchant on authenticated routes, per IP and per e-mail on auth,
    // per IP and per credential on refused credentials
    rateLimitApiPerMinute: int(env, 'RATE_LIMIT_API_PER_MINUTE', 6000, 1),
    rateLimitAuthIpPerMinute: int(env, 'RATE_LIMIT_AUTH_IP_PER_MINUTE', 20, 1),
    rateLimitAuthEmailPerMinute: int(env, 'RATE_LIMIT_AUTH_EMAIL_PER_MINUTE', 10, 1),
    // refused credentials (bad JWT, unknown or inactive API key) per client IP and per credential, on every route that
    // checks one
    rateLimitAuthFailuresPerMinute: int(env, 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE', 30, 1),
    // the payer's payment page and its status (polled every 2 s while open), per client IP, counted in each API process
    rateLimitPublicPerMinute: int(env, 'RATE_LIMIT_PUBLIC_PER_MINUTE', 600, 1),
    // the keys sealing secrets at rest (webhook secrets); none in a process that does not open them
    secrets,
    platformFeeBps: int(env, 'PLATFORM_FEE_BPS', 99),
    platformFeeFixed: int(env, 'PLATFORM_FEE_FIXED', 0),
    webhookRetryScale: num(env, 'WEBHOOK_RETRY_SCALE', 1),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 128, 1),
    // a merchant with this many deliveries in flight across every daemon gets none of the slots each daemon reserves
    // (a quarter) for the others: a merchant whose endpoint hangs never holds them all (src/platform/slot-worker.ts)
    webhookMerchantConcurrency: int(env, 'WEBHOOK_MERCHANT_CONCURRENCY', 32, 1),
    // unhealthy outcomes in a row (no answer, 5xx, 429) that open an endpoint's circuit breaker; 0: never
    // (src/webhooks/breaker.ts)
    webhookBreakerThreshold: int(env, 'WEBHOOK_BREAKER_THRESHOLD', 10, 0),
    // a webhook whose last N deliveries all failed for good, the first at least H hours (x WEBHOOK_RETRY_SCALE) before
    // the last, with no success between, is disabled (contract; src/webhooks/auto-disable.ts)
    webhookDisableMinFailures: int(env, 'WEBHOOK_DISABLE_MIN_FAILURES', 10, 1),
    webhookDisableAfterHours: num(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 120),
    dbPoolMax: int(env, 'DB_POOL_MAX', 10, 1),
    // how long an API process keeps what a credential resolves to, at most (forgotten at once on a change notified by
    // the database; src/auth/principal-cache.ts); 0: every request reads it
    principalCacheMs: int(env, 'PRINCIPAL_CACHE_MS', 5000),
    webConcurrency: int(env, 'WEB_CONCURRENCY', 1, 1),
    // a withdrawal still PROCESSING this long after its last change is checked against the acquirer (crash recovery)
    withdrawalReconcileAfterSeconds: int(env, 'WITHDRAWAL_RECONCILE_AFTER_SECONDS', 30, 1),
    // a refund (devolução) still in progress this long after its last change is asked about again
    refundReconcileAfterSeconds: int(env, 'REFUND_RECONCILE_AFTER_SECONDS', 30, 1),
    // events and webhook delivery logs older than this are deleted by the worker (0: kept forever)
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 30),
    // MED: the merchant's window to send a defence after an infraction opens (when the PSP gives none)
    infractionDefenseHours: int(env, 'INFRACTION_DEFENSE_HOURS', 72, 1),
    // the worker's and the daemon's own /metrics and /healthz (the API serves them on PORT); METRICS_TOKEN guards both
    metricsPort,
    metricsToken,
  };
}

// ACQUIRER=apipix: the PSP's address, OAuth2 client, mTLS certificate (PEM files) and the platform's receiving key.
function apipixConfig(env: NodeJS.ProcessEnv, missing: string[], problems: string[]) {
  const required = (name: string) => {
    const value = env[name] ?? '';
    if (!value) missing.push(name);
    return value;
  };
  const c = {
    baseUrl: required('APIPIX_BASE_URL').replace(/\/+$/, ''),
    clientId: required('APIPIX_CLIENT_ID'),
    clientSecret: required('APIPIX_CLIENT_SECRET'),
    certFile: required('APIPIX_CERT_FILE'),
    keyFile: required('APIPIX_KEY_FILE'),
    caFile: env.APIPIX_CA_FILE || null,
    pixKey: required('APIPIX_PIX_KEY'),
    webhookToken: required('APIPIX_WEBHOOK_TOKEN'),
    timeoutMs: int(env, 'APIPIX_TIMEOUT_MS', 10_000, 1),
    // how far back the reconciliation job lists received Pix (GET /v2/pix?inicio&fim)
    reconcileWindowSeconds: int(env, 'APIPIX_RECONCILE_WINDOW_SECONDS', 3600, 60),
    // Pix Automático: the receiving account every cobr names (`<agência>/<conta>/<CORRENTE|POUPANCA|PAGAMENTO>`,
    // agência may be empty); without it mandates and recurring charges are refused
    account: pspAccount(env.APIPIX_ACCOUNT, problems),
  };
  if (c.baseUrl && !/^https:\/\//.test(c.baseUrl)) problems.push('APIPIX_BASE_URL must be an https:// URL (mTLS)');
  if (c.webhookToken && (c.webhookToken.length < 32 || !/^[A-Za-z0-9_-]+$/.test(c.webhookToken))) {
    problems.push('APIPIX_WEBHOOK_TOKEN must be at least 32 characters of [A-Za-z0-9_-] (e.g. `openssl rand -hex 32`)');
  }
  return c;
}

function pspAccount(value: string | undefined, problems: string[]) {
  if (!value) return null;
  const m = /^(\d{0,4})\/([0-9A-Za-z-]{1,20})\/(CORRENTE|POUPANCA|PAGAMENTO)$/.exec(value);
  if (!m) {
    problems.push(
      'APIPIX_ACCOUNT must be <agência (up to 4 digits, may be empty)>/<conta>/<CORRENTE|POUPANCA|PAGAMENTO>',
    );
    return null;
  }
  const tipoConta = m[3] as 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO';
  return { ...(m[1] ? { agencia: m[1] } : {}), conta: m[2], tipoConta };
}

// One line naming everything missing or unusable, and why it is required here.
function refusal(env: NodeJS.ProcessEnv, strict: boolean, missing: string[], problems: string[]): string {
  const why = !strict
    ? 'required with ACQUIRER=apipix, which never runs with development secrets'
    : env.NODE_ENV
      ? `required when NODE_ENV=${env.NODE_ENV}`
      : "required: NODE_ENV is unset, so production's protections apply (NODE_ENV=development on a developer's machine)";
  const head = missing.length ? [`missing ${missing.join(', ')}`] : [];
  return `${[...head, ...problems].join('; ')} (${why}; see .env.example)`;
}
