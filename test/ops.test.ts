import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { commands, main } from '../src/ops.ts';
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
  return {
    code,
    out: out.join('\n'),
    err: err.join('\n'),
    json: code === 0 && out[0]?.startsWith('{') ? JSON.parse(out.join('\n')) : undefined,
  };
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
  t.deepEqual((await m.http.get('/v1/merchants/me')).body, {
    code: 'account_inactive',
    message: 'Sua conta está inativa',
  });
  t.is((await ops('merchant:unblock', '--email', m.email)).json.merchant.status, 'ACTIVE');
  t.is((await m.http.get('/v1/merchants/me')).status, 200);
});

test('user:admin gives the ADMIN role', async (t) => {
  const m = await createMerchant(app);
  const res = await ops('user:admin', '--email', m.email);
  t.deepEqual(res.json.user, { id: m.userId, email: m.email, role: 'ADMIN' });
});

test('exit codes: 1 for a command that says no (unknown e-mail), 2 for a wrong command line', async (t) => {
  const unknown = await ops('kyc:approve', '--email', 'ghost@example.com');
  t.is(unknown.code, 1);
  t.regex(unknown.err, /no user with e-mail ghost@example.com/);
  const cmd = await ops('kyc:approve-all');
  t.is(cmd.code, 2);
  t.regex(cmd.err, /unknown command "kyc:approve-all"/);
  const missing = await ops('merchant:fee', '--email', 'x@example.com', '--bps', '10');
  t.is(missing.code, 2);
  t.regex(missing.err, /missing --fixed/);
  const bad = await ops('kyc:approve', '--email', 'x@example.com', '--force');
  t.is(bad.code, 2);
  t.regex(bad.err, /Unknown option '--force'/);
  t.is((await ops()).code, 2, 'no command at all');
  const m = await createMerchant(app);
  const badValue = await ops('merchant:fee', '--email', m.email, '--bps=-5', '--fixed', '0');
  t.is(badValue.code, 2);
  t.regex(badValue.err, /--bps must be an integer/);
  t.deepEqual((await m.http.get('/v1/merchants/me')).body.merchant.fee, {
    bps: app.config.platformFeeBps,
    fixed: app.config.platformFeeFixed,
  });
});

test('every command names the database it uses on stderr (host:port/database), never the password', async (t) => {
  const res = await ops('infractions:list');
  t.is(res.code, 0);
  const url = new URL(app.databaseUrl);
  t.is(res.err, `ops: database ${url.hostname}:${url.port}${url.pathname} (DATABASE_URL)`);
  if (url.password) t.false(res.err.includes(url.password));
});

test('<command> --help prints that command alone, its required flags marked required', async (t) => {
  const help = await ops('infraction:accept', '--help');
  t.is(help.code, 0);
  t.regex(help.out, /^usage: npm run -s ops -- infraction:accept --id <value>\n/);
  t.regex(help.out, /--id <value>\s+required\s+the infraction id/);
  t.false(help.out.includes('kyc:approve'), 'not the whole list');
  t.regex(help.out, /exit codes: 0 done, 1 not found\/refused\/problems found, 2 usage error, 3 could not run/);
  const fee = (await ops('merchant:fee', '--help')).out;
  t.regex(fee, /--email <value>\s+required/);
  t.regex(fee, /--fixed <value>\s+required/);
  t.regex((await ops('acquirer:configure', '--help')).out, /--account <value>\s+optional/);
  t.is((await ops('help', 'merchant:fee')).out, fee, '`help <command>` says the same');
  for (const c of commands) {
    const text = (await ops(c.name, '--help')).out;
    for (const [flag, f] of Object.entries(c.flags))
      t.regex(
        text,
        new RegExp(`--${flag}(?: <value>)?\\s+${f.required ? 'required' : 'optional'}\\s`),
        `${c.name} --${flag}`,
      );
  }
});

test('infraction:* --id is required (exit 2 without it); an unknown infraction exits 1 (the real CLI)', async (t) => {
  const env = { ...process.env, DATABASE_URL: app.databaseUrl, NODE_ENV: 'test' };
  const cli = (...argv: string[]) =>
    spawnSync(process.execPath, ['scripts/ops.ts', ...argv], { encoding: 'utf8', env });
  for (const outcome of ['accept', 'reject', 'cancel']) {
    const missing = cli(`infraction:${outcome}`);
    t.is(missing.status, 2, missing.stderr);
    t.regex(missing.stderr, new RegExp(`infraction:${outcome}: missing --id`));
  }
  const unknown = cli('infraction:accept', '--id', '01a21563-fd36-73b2-9dbe-e353127ebfae');
  t.is(unknown.status, 1, unknown.stderr);
  t.regex(unknown.stderr, /infraction:accept: Infração não encontrada/);
  t.notRegex(unknown.stderr, /\n\s+at /, 'no stack trace');
  t.is(unknown.stdout, '');
  t.is(cli('infraction:accept', '--id', 'not-a-uuid').status, 1);
});

test('npm run ops -- --help lists the commands (the real CLI process)', (t) => {
  const res = spawnSync(process.execPath, ['scripts/ops.ts', '--help'], { encoding: 'utf8' });
  t.is(res.status, 0);
  for (const c of commands) t.true(res.stdout.includes(`  ${c.name}`), c.name);
  t.regex(res.stdout, /infraction:accept --id <value>\n/, 'required flags in the synopsis');
  t.regex(res.stdout, /infractions:list \[--open\] \[--overdue\]\n/, 'optional ones in brackets');
  const bad = spawnSync(process.execPath, ['scripts/ops.ts', 'kyc:approve', '--email', 'ghost@example.com'], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: app.databaseUrl },
  });
  t.is(bad.status, 1);
  t.regex(bad.stderr, /no user with e-mail/);
});

// npm prints a banner ("> pix-payments@0.1.0 ops ...") on stdout before the script: `-s` keeps it out of `| jq`.
test('`npm run -s ops` prints JSON only, and the guides show it that way', (t) => {
  const env = { ...process.env, DATABASE_URL: app.databaseUrl, NODE_ENV: 'test' };
  const quiet = spawnSync('npm', ['run', '-s', 'ops', '--', 'infractions:list'], { encoding: 'utf8', env });
  t.is(quiet.status, 0, quiet.stderr);
  t.like(JSON.parse(quiet.stdout), { count: 0 });
  const loud = spawnSync('npm', ['run', 'ops', '--', 'infractions:list'], { encoding: 'utf8', env });
  t.throws(() => JSON.parse(loud.stdout), undefined, 'without -s, the banner breaks jq');

  const operating = readFileSync(new URL('../docs/operating.md', import.meta.url), 'utf8');
  t.regex(operating, /npm run -s ops -- \S+.*\| jq/);
  for (const file of ['../README.md', '../docs/operating.md']) {
    const text = readFileSync(new URL(file, import.meta.url), 'utf8');
    const piped = text.split('\n').filter((l) => /npm run (-s )?ops\b.*\| *jq/.test(l));
    for (const line of piped) t.regex(line, /npm run -s ops/, `${file}: ${line}`);
    t.notRegex(text, /npm run ops -- /, `${file} shows npm run ops without -s`);
  }
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
  t.regex(rotate.stderr, /^secrets:rotate-key: SECRETS_KEYS is required/m);
  const migrate = spawnSync(process.execPath, ['scripts/migrate.ts'], { encoding: 'utf8', env });
  t.is(migrate.status, 0, migrate.stderr);
});
