import test from 'ava';
import { spawnSync } from 'node:child_process';
import { loadConfig } from '../src/platform/config.ts';

test('development has working defaults', (t) => {
  const c = loadConfig({});
  t.is(c.port, 3000);
  t.is(c.nodeEnv, 'development');
  t.true(c.jwtSecret.length >= 32);
  t.true(c.rateLimitEnabled);
  t.is(c.webhookRetryScale, 1);
});

test('production refuses a missing or weak JWT_SECRET, and a missing DATABASE_URL', (t) => {
  const db = {
    DATABASE_URL: 'postgresql://x@y/z',
    ACQUIRER_WEBHOOK_SECRET: 'a'.repeat(40),
    ACQUIRER: 'apipix',
    ...APIPIX,
    SECRETS_KEYS: KEYS,
  };
  t.throws(() => loadConfig({ NODE_ENV: 'production', ...db }), { message: /JWT_SECRET is required/ });
  t.throws(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'short', ...db }), {
    message: /JWT_SECRET is too weak/,
  });
  t.throws(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'k'.repeat(40) }), {
    message: /DATABASE_URL is required/,
  });
  t.throws(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'k'.repeat(40), DATABASE_URL: db.DATABASE_URL }), {
    message: /ACQUIRER_WEBHOOK_SECRET is required/,
  });
  t.is(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'k'.repeat(40), ...db }).production, true);
});

const KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

const APIPIX = {
  APIPIX_BASE_URL: 'https://psp.example.com/',
  APIPIX_CLIENT_ID: 'id',
  APIPIX_CLIENT_SECRET: 'secret',
  APIPIX_CERT_FILE: '/etc/psp/cert.pem',
  APIPIX_KEY_FILE: '/etc/psp/key.pem',
  APIPIX_PIX_KEY: 'pix@example.com',
  APIPIX_WEBHOOK_TOKEN: 't'.repeat(40),
};

test('production refuses the sandbox acquirer (it mints balances) with one clear line', (t) => {
  const env = {
    NODE_ENV: 'production',
    JWT_SECRET: 'k'.repeat(40),
    DATABASE_URL: 'postgresql://x@y/z',
    ACQUIRER_WEBHOOK_SECRET: 'a'.repeat(40),
    SECRETS_KEYS: KEYS,
  };
  t.throws(() => loadConfig(env), { message: /ACQUIRER=sandbox is refused when NODE_ENV=production/ });
  t.throws(() => loadConfig({ ...env, ACQUIRER: 'acme' }), { message: /ACQUIRER must be "sandbox" or "apipix"/ });
  t.is(loadConfig({ ...env, ACQUIRER: 'apipix', ...APIPIX }).acquirer, 'apipix');
});

test('ACQUIRER=apipix names each missing or unsafe setting', (t) => {
  t.throws(() => loadConfig({ ACQUIRER: 'apipix' }), { message: /APIPIX_BASE_URL is required when ACQUIRER=apipix/ });
  t.throws(() => loadConfig({ ACQUIRER: 'apipix', ...APIPIX, APIPIX_BASE_URL: 'http://psp.example.com' }), {
    message: /https/,
  });
  t.throws(() => loadConfig({ ACQUIRER: 'apipix', ...APIPIX, APIPIX_WEBHOOK_TOKEN: 'short' }), {
    message: /APIPIX_WEBHOOK_TOKEN/,
  });
  const { apipix } = loadConfig({ ACQUIRER: 'apipix', ...APIPIX });
  t.like(apipix, { baseUrl: 'https://psp.example.com', pixKey: 'pix@example.com', caFile: null });
});

test('staging gets production protections: no default secrets, public https webhook URLs unless opted out', (t) => {
  const base = { NODE_ENV: 'staging', DATABASE_URL: 'postgresql://x@y/z' };
  t.throws(() => loadConfig(base), { message: /JWT_SECRET is required when NODE_ENV=staging/ });
  t.throws(() => loadConfig({ ...base, JWT_SECRET: 'k'.repeat(40) }), {
    message: /ACQUIRER_WEBHOOK_SECRET is required when NODE_ENV=staging/,
  });
  const env = { ...base, JWT_SECRET: 'k'.repeat(40), ACQUIRER_WEBHOOK_SECRET: 'a'.repeat(40), SECRETS_KEYS: KEYS };
  const staging = loadConfig(env);
  t.like(staging, { strict: true, production: false, publicWebhooksOnly: true, acquirer: 'sandbox' });
  t.false(loadConfig({ ...env, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }).publicWebhooksOnly);
  const prod = { ...env, NODE_ENV: 'production', ACQUIRER: 'apipix', ...APIPIX, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' };
  t.true(loadConfig(prod).publicWebhooksOnly); // production never opts out
  t.like(loadConfig({}), { strict: false, publicWebhooksOnly: false });
  t.like(loadConfig({ NODE_ENV: 'test' }), { strict: false, publicWebhooksOnly: false });
});

test('TRUST_PROXY, BODY_LIMIT and CORS_ORIGINS are read as Express expects them', (t) => {
  t.like(loadConfig({}), { trustProxy: 1, bodyLimit: '64kb', corsOrigins: [] });
  t.is(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  t.is(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  t.is(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy, '10.0.0.0/8, loopback');
  t.is(loadConfig({ BODY_LIMIT: '1mb' }).bodyLimit, '1mb');
  t.throws(() => loadConfig({ BODY_LIMIT: 'lots' }), { message: /BODY_LIMIT/ });
  t.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins, [
    'https://a.example',
    'https://b.example',
  ]);
});

test('SECRETS_KEYS: required in production and staging, a fixed development key otherwise, malformed keys refused', (t) => {
  const prod = {
    NODE_ENV: 'production',
    JWT_SECRET: 'k'.repeat(40),
    DATABASE_URL: 'postgresql://x@y/z',
    ACQUIRER_WEBHOOK_SECRET: 'a'.repeat(40),
    ACQUIRER: 'apipix',
    ...APIPIX,
  };
  t.throws(() => loadConfig(prod), { message: /SECRETS_KEYS is required outside development and test/ });
  t.throws(() => loadConfig({ ...prod, NODE_ENV: 'staging' }), { message: /SECRETS_KEYS is required/ });
  t.throws(() => loadConfig({ ...prod, SECRETS_KEYS: `key one:${Buffer.alloc(32).toString('base64')}` }), {
    message: /SECRETS_KEYS must be a comma-separated list/,
  });
  t.throws(
    () => loadConfig({ ...prod, SECRETS_KEYS: `dev:${loadConfig({}).secrets.keys.get('dev')!.toString('base64')}` }),
    {
      message: /development key/,
    },
  );
  t.throws(() => loadConfig({ SECRETS_KEYS: 'k1:c2hvcnQ=' }), { message: /key "k1" must be 32 bytes/ });
  t.throws(() => loadConfig({ SECRETS_KEYS: `${KEYS},${KEYS}` }), { message: /"k1" appears twice/ });
  const two = loadConfig({ ...prod, SECRETS_KEYS: `k2:${Buffer.alloc(32, 9).toString('base64')}, ${KEYS}` }).secrets;
  t.is(two.current, 'k2');
  t.deepEqual([...two.keys.keys()], ['k2', 'k1']);
  t.is(loadConfig({ NODE_ENV: 'test' }).secrets.current, 'dev');
});

test('malformed numbers and booleans are refused by name', (t) => {
  t.throws(() => loadConfig({ PORT: 'abc' }), { message: /PORT/ });
  t.throws(() => loadConfig({ RATE_LIMIT_ENABLED: 'maybe' }), { message: /RATE_LIMIT_ENABLED/ });
  t.throws(() => loadConfig({ WEBHOOK_RETRY_SCALE: '-1' }), { message: /WEBHOOK_RETRY_SCALE/ });
  t.is(loadConfig({ RATE_LIMIT_ENABLED: 'false' }).rateLimitEnabled, false);
});

test('the API process refuses to start in production without a secret, with a clear message', (t) => {
  const res = spawnSync(process.execPath, ['apps/api/main.ts'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, NODE_ENV: 'production', DATABASE_URL: 'postgresql://x@127.0.0.1:1/z' },
    timeout: 20_000,
  });
  t.is(res.status, 1);
  t.regex(res.stderr, /JWT_SECRET is required when NODE_ENV=production/);
});

test('METRICS_PORT and METRICS_TOKEN are optional; a bad port is refused', (t) => {
  t.like(loadConfig({}), { metricsPort: null, metricsToken: null });
  t.like(loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 's3cret' }), { metricsPort: 9464, metricsToken: 's3cret' });
  t.throws(() => loadConfig({ METRICS_PORT: 'abc' }), { message: /METRICS_PORT must be an integer >= 1/ });
  t.throws(() => loadConfig({ METRICS_PORT: '0' }), { message: /METRICS_PORT must be an integer >= 1/ });
});
