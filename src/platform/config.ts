import { parseKeyring } from './secrets.ts';

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

// Express's `trust proxy`: hops to trust (a number), true/false, or addresses/subnets separated by commas.
function trustProxy(raw: string | undefined): number | boolean | string {
  if (raw === undefined || raw === '') return 1; // behind one platform router (Heroku-style)
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const nodeEnv = env.NODE_ENV || 'development';
  const production = nodeEnv === 'production';
  // Every environment but a developer's machine and the test suite (staging included) gets production's protections.
  const strict = nodeEnv !== 'development' && nodeEnv !== 'test';
  const jwtSecret = env.JWT_SECRET || (strict ? '' : DEV_JWT_SECRET);
  if (strict) {
    if (!jwtSecret) throw new ConfigError(`JWT_SECRET is required when NODE_ENV=${nodeEnv}`);
    if (jwtSecret === DEV_JWT_SECRET || jwtSecret.length < 32) {
      throw new ConfigError(
        'JWT_SECRET is too weak: use at least 32 random characters (e.g. `openssl rand -base64 48`)',
      );
    }
    if (!env.DATABASE_URL) throw new ConfigError(`DATABASE_URL is required when NODE_ENV=${nodeEnv}`);
  }
  const acquirerWebhookSecret = env.ACQUIRER_WEBHOOK_SECRET || (strict ? '' : DEV_ACQUIRER_SECRET);
  if (strict && (acquirerWebhookSecret.length < 32 || acquirerWebhookSecret === DEV_ACQUIRER_SECRET)) {
    throw new ConfigError(
      `ACQUIRER_WEBHOOK_SECRET is required when NODE_ENV=${nodeEnv} (at least 32 random characters)`,
    );
  }
  const acquirer = env.ACQUIRER || 'sandbox';
  if (acquirer !== 'sandbox' && acquirer !== 'apipix') {
    throw new ConfigError(`ACQUIRER must be "sandbox" or "apipix", got "${acquirer}"`);
  }
  if (production && acquirer === 'sandbox') {
    throw new ConfigError(
      'ACQUIRER=sandbox is refused when NODE_ENV=production (the sandbox mints balances): set ACQUIRER=apipix',
    );
  }
  return {
    nodeEnv,
    production,
    strict,
    // webhook URLs must be https and resolve to public addresses, unless a non-production environment opts out
    publicWebhooksOnly: strict && !(bool(env, 'ALLOW_PRIVATE_WEBHOOK_URLS', false) && !production),
    trustProxy: trustProxy(env.TRUST_PROXY),
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
    apipix: acquirer === 'apipix' ? apipixConfig(env) : null,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${int(env, 'PORT', 3000)}`).replace(/\/+$/, ''),
    rateLimitEnabled: bool(env, 'RATE_LIMIT_ENABLED', true),
    // shared by every process through PostgreSQL: per merchant on authenticated routes, per IP and per e-mail on auth
    rateLimitApiPerMinute: int(env, 'RATE_LIMIT_API_PER_MINUTE', 6000, 1),
    rateLimitAuthIpPerMinute: int(env, 'RATE_LIMIT_AUTH_IP_PER_MINUTE', 20, 1),
    rateLimitAuthEmailPerMinute: int(env, 'RATE_LIMIT_AUTH_EMAIL_PER_MINUTE', 10, 1),
    // the keys sealing secrets at rest (webhook secrets); required wherever production's protections apply
    secrets: parseKeyring(env.SECRETS_KEYS, strict),
    platformFeeBps: int(env, 'PLATFORM_FEE_BPS', 99),
    platformFeeFixed: int(env, 'PLATFORM_FEE_FIXED', 0),
    webhookRetryScale: num(env, 'WEBHOOK_RETRY_SCALE', 1),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 128, 1),
    dbPoolMax: int(env, 'DB_POOL_MAX', 10, 1),
    webConcurrency: int(env, 'WEB_CONCURRENCY', 1, 1),
    // a withdrawal still PROCESSING this long after its last change is checked against the acquirer (crash recovery)
    withdrawalReconcileAfterSeconds: int(env, 'WITHDRAWAL_RECONCILE_AFTER_SECONDS', 30, 1),
    // a refund (devolução) still in progress this long after its last change is asked about again
    refundReconcileAfterSeconds: int(env, 'REFUND_RECONCILE_AFTER_SECONDS', 30, 1),
    // MED: the merchant's window to send a defence after an infraction opens (when the PSP gives none)
    infractionDefenseHours: int(env, 'INFRACTION_DEFENSE_HOURS', 72, 1),
    // the worker's and the daemon's own /metrics and /healthz (the API serves them on PORT); METRICS_TOKEN guards both
    metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 1) : null,
    metricsToken: env.METRICS_TOKEN || null,
  };
}

// ACQUIRER=apipix: the PSP's address, OAuth2 client, mTLS certificate (PEM files) and the platform's receiving key.
function apipixConfig(env: NodeJS.ProcessEnv) {
  const required = (name: string) => {
    const value = env[name];
    if (!value) throw new ConfigError(`${name} is required when ACQUIRER=apipix`);
    return value;
  };
  const baseUrl = required('APIPIX_BASE_URL').replace(/\/+$/, '');
  if (!/^https:\/\//.test(baseUrl)) throw new ConfigError('APIPIX_BASE_URL must be an https:// URL (mTLS)');
  const webhookToken = required('APIPIX_WEBHOOK_TOKEN');
  if (webhookToken.length < 32 || !/^[A-Za-z0-9_-]+$/.test(webhookToken)) {
    throw new ConfigError(
      'APIPIX_WEBHOOK_TOKEN must be at least 32 characters of [A-Za-z0-9_-] (e.g. `openssl rand -hex 32`)',
    );
  }
  return {
    baseUrl,
    clientId: required('APIPIX_CLIENT_ID'),
    clientSecret: required('APIPIX_CLIENT_SECRET'),
    certFile: required('APIPIX_CERT_FILE'),
    keyFile: required('APIPIX_KEY_FILE'),
    caFile: env.APIPIX_CA_FILE || null,
    pixKey: required('APIPIX_PIX_KEY'),
    webhookToken,
    timeoutMs: int(env, 'APIPIX_TIMEOUT_MS', 10_000, 1),
    // how far back the reconciliation job lists received Pix (GET /v2/pix?inicio&fim)
    reconcileWindowSeconds: int(env, 'APIPIX_RECONCILE_WINDOW_SECONDS', 3600, 60),
  };
}
