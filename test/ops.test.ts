import test from 'ava';
import { spawnSync } from 'node:child_process';
import { main } from '../src/ops.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

// Runs the operator CLI in-process against the test database, capturing what it prints.
async function ops(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env: { DATABASE_URL: app.databaseUrl, NODE_ENV: 'test' },
  });
  return { code, out: out.join('\n'), err: err.join('\n'), json: code === 0 ? JSON.parse(out.join('\n')) : undefined };
}

test('kyc:approve, acquirer:configure and merchant:fee change the merchant and print it as JSON', async (t) => {
  const m = await createMerchant(app);
  const early = await ops('acquirer:configure', '--email', m.email);
  t.is(early.code, 1);
  t.regex(early.err, /KYC/);

  const kyc = await ops('kyc:approve', '--email', m.email.toUpperCase());
  t.is(kyc.code, 0);
  t.like(kyc.json.merchant, { id: m.merchantId, kycStatus: 'APPROVED', acquirerConfigured: false });

  const acq = await ops('acquirer:configure', '--email', m.email, '--account', 'acct-123');
  t.like(acq.json.merchant, { acquirerConfigured: true, acquirerAccountId: 'acct-123' });
  const generated = await ops('acquirer:configure', '--email', m.email);
  t.regex(generated.json.merchant.acquirerAccountId, /^sandbox-[0-9a-f]{12}$/);

  const fee = await ops('merchant:fee', '--email', m.email, '--bps', '150', '--fixed', '10');
  t.deepEqual(fee.json.merchant.fee, { bps: 150, fixed: 10 });
  const me = await m.http.get('/v1/merchants/me');
  t.like(me.body.merchant, { kycStatus: 'APPROVED', acquirerConfigured: true, fee: { bps: 150, fixed: 10 } });

  t.is((await ops('kyc:reject', '--email', m.email)).json.merchant.kycStatus, 'REJECTED');
});

test('merchant:block makes every call 403 until merchant:unblock', async (t) => {
  const m = await createMerchant(app);
  t.is((await ops('merchant:block', '--email', m.email)).json.merchant.status, 'BLOCKED');
  t.deepEqual((await m.http.get('/v1/merchants/me')).body, { message: 'Sua conta está inativa' });
  t.is((await ops('merchant:unblock', '--email', m.email)).json.merchant.status, 'ACTIVE');
  t.is((await m.http.get('/v1/merchants/me')).status, 200);
});

test('user:admin gives the ADMIN role', async (t) => {
  const m = await createMerchant(app);
  const res = await ops('user:admin', '--email', m.email);
  t.deepEqual(res.json.user, { id: m.userId, email: m.email, role: 'ADMIN' });
});

test('unknown e-mail, unknown command, missing or bad flags: exit 1 with a clear message', async (t) => {
  const unknown = await ops('kyc:approve', '--email', 'ghost@example.com');
  t.is(unknown.code, 1);
  t.regex(unknown.err, /no user with e-mail ghost@example.com/);
  const cmd = await ops('kyc:approve-all');
  t.is(cmd.code, 1);
  t.regex(cmd.err, /unknown command/);
  const missing = await ops('merchant:fee', '--email', 'x@example.com', '--bps', '10');
  t.is(missing.code, 1);
  t.regex(missing.err, /missing --fixed/);
  const bad = await ops('kyc:approve', '--email', 'x@example.com', '--force');
  t.is(bad.code, 1);
  t.regex(bad.err, /Unknown option '--force'/);
  const m = await createMerchant(app);
  const badValue = await ops('merchant:fee', '--email', m.email, '--bps=-5', '--fixed', '0');
  t.is(badValue.code, 1);
  t.regex(badValue.err, /--bps must be an integer/);
  t.deepEqual((await m.http.get('/v1/merchants/me')).body.merchant.fee, {
    bps: app.config.platformFeeBps,
    fixed: app.config.platformFeeFixed,
  });
});

test('npm run ops -- --help lists the commands (the real CLI process)', (t) => {
  const res = spawnSync(process.execPath, ['scripts/ops.ts', '--help'], { encoding: 'utf8' });
  t.is(res.status, 0);
  for (const name of [
    'kyc:approve',
    'kyc:reject',
    'acquirer:configure',
    'merchant:block',
    'merchant:unblock',
    'merchant:fee',
    'user:admin',
  ]) {
    t.true(res.stdout.includes(name), name);
  }
  const bad = spawnSync(process.execPath, ['scripts/ops.ts', 'kyc:approve', '--email', 'ghost@example.com'], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: app.databaseUrl },
  });
  t.is(bad.status, 1);
  t.regex(bad.stderr, /no user with e-mail/);
});

test('operators need no secret they do not use: without NODE_ENV, ops runs; a command needing one names it', (t) => {
  const env = { PATH: process.env.PATH, DATABASE_URL: app.databaseUrl }; // production's protections, no secret
  const ops = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/ops.ts', ...args], { encoding: 'utf8', env });
  const verify = ops('ledger:verify');
  t.is(verify.status, 0, verify.stderr);
  t.true(JSON.parse(verify.stdout).ok);
  const rotate = ops('secrets:rotate-key', '--dry-run');
  t.is(rotate.status, 1);
  t.regex(rotate.stderr, /^secrets:rotate-key: SECRETS_KEYS is required/);
  const migrate = spawnSync(process.execPath, ['scripts/migrate.ts'], { encoding: 'utf8', env });
  t.is(migrate.status, 0, migrate.stderr);
});
