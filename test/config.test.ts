import test from 'ava';
import { spawnSync } from 'node:child_process';
import { loadConfig } from '../src/platform/config.ts';

const DEV = { NODE_ENV: 'development' };
const KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
// What production's protections require of the API process.
const SECRETS = {
  DATABASE_URL: 'postgresql://x@y/z',
  JWT_SECRET: 'k'.repeat(40),
  ACQUIRER_WEBHOOK_SECRET: 'a'.repeat(40),
  SECRETS_KEYS: KEYS,
  METRICS_TOKEN: 'm'.repeat(40),
};
const APIPIX = {
  ACQUIRER: 'apipix',
  APIPIX_BASE_URL: 'https://psp.example.com/',
  APIPIX_CLIENT_ID: 'id',
  APIPIX_CLIENT_SECRET: 'secret',
  APIPIX_CERT_FILE: '/etc/psp/cert.pem',
  APIPIX_KEY_FILE: '/etc/psp/key.pem',
  APIPIX_PIX_KEY: 'pix@example.com',
  APIPIX_WEBHOOK_TOKEN: 't'.repeat(40),
};
const without = (env: Record<string, string>, ...names: string[]) =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !names.includes(k)));

test('development has working defaults', (t) => {
  const c = loadConfig(DEV);
  t.is(c.port, 3000);
  t.is(c.nodeEnv, 'development');
  t.true(c.jwtSecret.length >= 32);
  t.true(c.rateLimitEnabled);
  t.is(c.webhookRetryScale, 1);
});

test('fail closed: without NODE_ENV=development or test, one line names every missing secret at once', (t) => {
  for (const nodeEnv of [undefined, '', 'production', 'staging', 'dev', 'Development', 'prod']) {
    const env = nodeEnv === undefined ? {} : { NODE_ENV: nodeEnv };
    const err = t.throws(() => loadConfig(env));
    t.regex(
      err.message,
      /^missing DATABASE_URL, JWT_SECRET, ACQUIRER_WEBHOOK_SECRET, SECRETS_KEYS, METRICS_TOKEN(; ACQUIRER=sandbox is refused when NODE_ENV=production.*)? \(required/,
      String(nodeEnv),
    );
    t.false(err.message.includes('\n'));
  }
  t.regex(t.throws(() => loadConfig({})).message, /NODE_ENV is unset, so production's protections apply/);
  t.regex(t.throws(() => loadConfig({ NODE_ENV: 'staging' })).message, /required when NODE_ENV=staging/);
  const strict = loadConfig({ NODE_ENV: 'staging', ...SECRETS });
  t.like(strict, { strict: true, production: false, jwtSecret: SECRETS.JWT_SECRET });
  t.like(loadConfig(SECRETS), { strict: true, nodeEnv: '' }); // unset: the same protections, not development
});

test('weak or development values are refused beside the missing ones', (t) => {
  const dev = loadConfig(DEV);
  const err = t.throws(() =>
    loadConfig({
      NODE_ENV: 'production',
      ...APIPIX,
      ...without(SECRETS, 'SECRETS_KEYS', 'METRICS_TOKEN'),
      JWT_SECRET: dev.jwtSecret,
      ACQUIRER_WEBHOOK_SECRET: 'short',
      APIPIX_WEBHOOK_TOKEN: 'short',
    }),
  );
  t.regex(err.message, /^missing SECRETS_KEYS, METRICS_TOKEN; /);
  for (const re of [/JWT_SECRET is too weak/, /ACQUIRER_WEBHOOK_SECRET is too weak/, /APIPIX_WEBHOOK_TOKEN must be/])
    t.regex(err.message, re);
  t.throws(() => loadConfig({ ...SECRETS, METRICS_TOKEN: 's3cret' }), { message: /METRICS_TOKEN is too weak/ });
});

test('ACQUIRER=apipix never runs with development secrets, whatever NODE_ENV', (t) => {
  for (const NODE_ENV of ['development', 'test']) {
    t.throws(() => loadConfig({ NODE_ENV, ...APIPIX }), {
      message:
        /^missing JWT_SECRET, ACQUIRER_WEBHOOK_SECRET, SECRETS_KEYS \(required with ACQUIRER=apipix, which never runs with development secrets/,
    });
    const dev = loadConfig(DEV);
    const devKeys = `dev:${dev.secrets.keys.get('dev')!.toString('base64')}`;
    const copied = { JWT_SECRET: dev.jwtSecret, ACQUIRER_WEBHOOK_SECRET: dev.acquirerWebhookSecret };
    const err = t.throws(() => loadConfig({ NODE_ENV, ...APIPIX, ...copied, SECRETS_KEYS: devKeys }));
    t.regex(err.message, /JWT_SECRET is too weak.*ACQUIRER_WEBHOOK_SECRET is too weak.*development key/);
    // its own secrets: development otherwise (no DATABASE_URL or METRICS_TOKEN needed)
    const c = loadConfig({ NODE_ENV, ...APIPIX, ...without(SECRETS, 'DATABASE_URL', 'METRICS_TOKEN') });
    t.like(c, { strict: false, jwtSecret: SECRETS.JWT_SECRET, metricsToken: null });
  }
});

test('each process needs only its own secrets; operator tools need none', (t) => {
  const strict = { NODE_ENV: 'production', ...APIPIX };
  t.throws(() => loadConfig(strict, 'worker'), { message: /^missing DATABASE_URL \(/ });
  const worker = loadConfig({ ...strict, DATABASE_URL: SECRETS.DATABASE_URL }, 'worker');
  t.like(worker, { jwtSecret: '', acquirerWebhookSecret: '', metricsToken: null });
  t.is(worker.secrets.keys.size, 0);
  t.throws(() => loadConfig({ ...strict, DATABASE_URL: 'x', METRICS_PORT: '9464' }, 'worker'), {
    message: /^missing METRICS_TOKEN \(/,
  });
  t.throws(() => loadConfig(strict, 'webhooks'), { message: /^missing DATABASE_URL, SECRETS_KEYS \(/ });
  t.is(loadConfig({ ...strict, SECRETS_KEYS: KEYS, DATABASE_URL: 'x' }, 'webhooks').secrets.current, 'k1');
  // migrate checks DATABASE_URL itself; ops falls back to the embedded database of `npm start`
  t.like(loadConfig({}, 'tool'), { strict: true, jwtSecret: '', databaseUrl: '' });
  t.like(loadConfig({ ACQUIRER: 'apipix' }, 'tool'), { acquirer: 'apipix', apipix: null });
  t.truthy(loadConfig({ ...APIPIX }, 'tool').apipix);
});

test('production refuses the sandbox acquirer (it mints balances) and an unknown one', (t) => {
  const env = { NODE_ENV: 'production', ...SECRETS };
  t.throws(() => loadConfig(env), { message: /ACQUIRER=sandbox is refused when NODE_ENV=production/ });
  t.throws(() => loadConfig({ ...env, ACQUIRER: 'acme' }), { message: /ACQUIRER must be "sandbox" or "apipix"/ });
  t.is(loadConfig({ ...env, ...APIPIX }).acquirer, 'apipix');
  t.is(loadConfig({ ...env, NODE_ENV: 'staging' }).acquirer, 'sandbox');
});

test('ACQUIRER=apipix names every missing or unsafe setting in one line', (t) => {
  const env = { NODE_ENV: 'test', ...without(SECRETS, 'DATABASE_URL', 'METRICS_TOKEN') };
  t.throws(() => loadConfig({ ...env, ACQUIRER: 'apipix' }), {
    message:
      /^missing APIPIX_BASE_URL, APIPIX_CLIENT_ID, APIPIX_CLIENT_SECRET, APIPIX_CERT_FILE, APIPIX_KEY_FILE, APIPIX_PIX_KEY, APIPIX_WEBHOOK_TOKEN \(/,
  });
  t.throws(() => loadConfig({ ...env, ...APIPIX, APIPIX_BASE_URL: 'http://psp.example.com' }), { message: /https/ });
  const { apipix } = loadConfig({ ...env, ...APIPIX });
  t.like(apipix, { baseUrl: 'https://psp.example.com', pixKey: 'pix@example.com', caFile: null });
});

test('staging gets production protections: public https webhook URLs unless opted out', (t) => {
  const staging = loadConfig({ NODE_ENV: 'staging', ...SECRETS });
  t.like(staging, { strict: true, production: false, publicWebhooksOnly: true, acquirer: 'sandbox' });
  t.false(loadConfig({ NODE_ENV: 'staging', ...SECRETS, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }).publicWebhooksOnly);
  const prod = { NODE_ENV: 'production', ...SECRETS, ...APIPIX, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' };
  t.true(loadConfig(prod).publicWebhooksOnly); // production never opts out
  t.like(loadConfig(DEV), { strict: false, publicWebhooksOnly: false });
  t.like(loadConfig({ NODE_ENV: 'test' }), { strict: false, publicWebhooksOnly: false });
});

test('TRUST_PROXY: one hop on Heroku, none elsewhere; a setting that lets clients pick their IP is warned about', (t) => {
  t.like(loadConfig(DEV), { trustProxy: 0, trustProxyWarning: null });
  t.like(loadConfig({ ...DEV, DYNO: 'web.1' }), { trustProxy: 1, trustProxyWarning: null });
  t.like(loadConfig({ ...DEV, DYNO: 'web.1', TRUST_PROXY: '1' }), { trustProxy: 1, trustProxyWarning: null });
  t.like(loadConfig({ ...DEV, TRUST_PROXY: 'false' }), { trustProxy: false, trustProxyWarning: null });
  t.like(loadConfig({ ...DEV, TRUST_PROXY: '10.0.0.0/8, loopback' }), {
    trustProxy: '10.0.0.0/8, loopback',
    trustProxyWarning: null,
  });
  t.regex(loadConfig({ ...DEV, TRUST_PROXY: '1' }).trustProxyWarning!, /TRUST_PROXY=1 .*no known platform/);
  t.regex(loadConfig({ ...DEV, DYNO: 'web.1', TRUST_PROXY: '2' }).trustProxyWarning!, /Heroku has 1/);
  t.regex(loadConfig({ ...DEV, TRUST_PROXY: 'true' }).trustProxyWarning!, /first X-Forwarded-For entry/);
  t.regex(loadConfig({ ...DEV, DYNO: 'web.1', TRUST_PROXY: 'false' }).trustProxyWarning!, /router's IP/);
});

test('BODY_LIMIT and CORS_ORIGINS are read as Express expects them', (t) => {
  t.like(loadConfig(DEV), { bodyLimit: '64kb', corsOrigins: [] });
  t.is(loadConfig({ ...DEV, BODY_LIMIT: '1mb' }).bodyLimit, '1mb');
  t.throws(() => loadConfig({ ...DEV, BODY_LIMIT: 'lots' }), { message: /BODY_LIMIT/ });
  t.deepEqual(loadConfig({ ...DEV, CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins, [
    'https://a.example',
    'https://b.example',
  ]);
});

test('SECRETS_KEYS: required under production protections, a fixed development key otherwise, malformed keys refused', (t) => {
  const prod = { NODE_ENV: 'production', ...SECRETS, ...APIPIX };
  t.throws(() => loadConfig(without(prod, 'SECRETS_KEYS')), { message: /^missing SECRETS_KEYS \(/ });
  t.throws(() => loadConfig({ ...prod, SECRETS_KEYS: `key one:${Buffer.alloc(32).toString('base64')}` }), {
    message: /SECRETS_KEYS must be a comma-separated list/,
  });
  t.throws(
    () => loadConfig({ ...prod, SECRETS_KEYS: `dev:${loadConfig(DEV).secrets.keys.get('dev')!.toString('base64')}` }),
    {
      message: /development key/,
    },
  );
  t.throws(() => loadConfig({ ...DEV, SECRETS_KEYS: 'k1:c2hvcnQ=' }), { message: /key "k1" must be 32 bytes/ });
  t.throws(() => loadConfig({ ...DEV, SECRETS_KEYS: `${KEYS},${KEYS}` }), { message: /"k1" appears twice/ });
  const two = loadConfig({ ...prod, SECRETS_KEYS: `k2:${Buffer.alloc(32, 9).toString('base64')}, ${KEYS}` }).secrets;
  t.is(two.current, 'k2');
  t.deepEqual([...two.keys.keys()], ['k2', 'k1']);
  t.is(loadConfig({ NODE_ENV: 'test' }).secrets.current, 'dev');
});

test('malformed numbers and booleans are refused by name', (t) => {
  t.throws(() => loadConfig({ ...DEV, PORT: 'abc' }), { message: /PORT/ });
  t.throws(() => loadConfig({ ...DEV, RATE_LIMIT_ENABLED: 'maybe' }), { message: /RATE_LIMIT_ENABLED/ });
  t.throws(() => loadConfig({ ...DEV, WEBHOOK_RETRY_SCALE: '-1' }), { message: /WEBHOOK_RETRY_SCALE/ });
  t.throws(() => loadConfig({ ...DEV, RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0' }), {
    message: /RATE_LIMIT_AUTH_FAILURES_PER_MINUTE/,
  });
  t.is(loadConfig({ ...DEV, RATE_LIMIT_ENABLED: 'false' }).rateLimitEnabled, false);
});

// The real processes, with nothing but PATH: NODE_ENV unset is production's protections, not development.
const bare = (script: string, extra: Record<string, string> = {}) =>
  spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...extra },
    timeout: 20_000,
  });

test('every process refuses to start without NODE_ENV and its secrets, in one line naming them all', (t) => {
  const expected = {
    'apps/api/main.ts': 'DATABASE_URL, JWT_SECRET, ACQUIRER_WEBHOOK_SECRET, SECRETS_KEYS, METRICS_TOKEN',
    'apps/worker/main.ts': 'DATABASE_URL',
    'apps/webhooks/main.ts': 'DATABASE_URL, SECRETS_KEYS',
  };
  for (const [script, names] of Object.entries(expected)) {
    const res = bare(script);
    t.is(res.status, 1, script);
    t.is(res.stdout, '', script);
    t.is(res.stderr.trim().split('\n').length, 1, res.stderr);
    t.true(res.stderr.startsWith(`fatal: missing ${names} (required: NODE_ENV is unset`), res.stderr);
  }
  const migrate = bare('scripts/migrate.ts');
  t.is(migrate.status, 1);
  // its one line is a log line (stdout), as for npm start
  t.regex(migrate.stdout + migrate.stderr, /DATABASE_URL is not set/, 'migrate needs no secret, only its database');
});

test('METRICS_PORT and METRICS_TOKEN are optional in development; a bad port is refused', (t) => {
  t.like(loadConfig(DEV), { metricsPort: null, metricsToken: null });
  t.like(loadConfig({ ...DEV, METRICS_PORT: '9464', METRICS_TOKEN: 's3cret' }), {
    metricsPort: 9464,
    metricsToken: 's3cret',
  });
  t.throws(() => loadConfig({ ...DEV, METRICS_PORT: 'abc' }), { message: /METRICS_PORT must be an integer >= 1/ });
  t.throws(() => loadConfig({ ...DEV, METRICS_PORT: '0' }), { message: /METRICS_PORT must be an integer >= 1/ });
});
