// The whole service behind PgBouncer in transaction pooling mode, as managed platforms offer it to scale out: the
// release phase, the API, the worker and the webhook daemon as separate processes, every query through the pooler
// (DATABASE_POOL_MODE=transaction). The worker has no direct URL (it polls its queues); the daemon LISTENs on
// DATABASE_DIRECT_URL. A payment settles, its webhook reaches a real receiver, listings answer, the rate limiter counts
// every request in PostgreSQL, and no process logs an error, also past pg-boss' 10 s LISTEN heartbeat.
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { main as ops } from '../src/ops.ts';
import { PROCESS_ENV, PROCESS_FLAGS, type App } from '../src/platform/runtime.ts';
import { client } from './support/client.ts';
import { createEmptyTestDatabase } from './support/db.ts';
import { startPgBouncer, type PgBouncer } from './support/pgbouncer.ts';
import { freePort } from './support/procs.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { openSse } from './support/sse.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const HEARTBEAT_MS = 10_000; // pg-boss checks its LISTEN registration this often (a pooler loses it)

let direct: string;
let bouncer: PgBouncer;
let receiver: Receiver;
const procs: { name: string; child: ChildProcess; output: () => string }[] = [];

test.before(async () => {
  direct = await createEmptyTestDatabase(); // the release below creates the schema through the pooler
  bouncer = await startPgBouncer(direct);
  receiver = await startReceiver();
});
test.after.always(async () => {
  for (const p of procs) p.child.kill('SIGKILL');
  await receiver?.close();
  await bouncer?.stop();
});

const baseEnv = () => ({
  PATH: process.env.PATH,
  NODE_ENV: 'test',
  LOG_LEVEL: 'info',
  DATABASE_URL: bouncer.url,
  DATABASE_POOL_MODE: 'transaction',
  RATE_LIMIT_ENABLED: 'true',
});

function run(name: string, script: string, env: NodeJS.ProcessEnv = {}, execArgv: readonly string[] = []) {
  const child = spawn(process.execPath, [...execArgv, script], {
    cwd: root,
    env: { ...PROCESS_ENV, ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d));
  child.stderr!.on('data', (d: Buffer) => (output += d));
  const proc = { name, child, output: () => output };
  procs.push(proc);
  return proc;
}

async function startApp(app: App, env: NodeJS.ProcessEnv = {}) {
  const p = run(app, `apps/${app}/main.ts`, env, PROCESS_FLAGS[app]);
  const deadline = Date.now() + 30_000;
  while (!/"msg":"ready"/.test(p.output()) && p.child.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  if (!/"msg":"ready"/.test(p.output())) throw new Error(`${app} never said ready:\n${p.output()}`);
  return p;
}

async function operator(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await ops(argv, { out: (s) => out.push(s), err: (s) => err.push(s), env: baseEnv() });
  if (code !== 0) throw new Error(`ops ${argv.join(' ')}: ${[...out, ...err].join('\n')}`);
  return JSON.parse(out.join('\n'));
}

async function directQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: direct });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

test.serial('the release phase migrates an empty database through the pooler', async (t) => {
  const release = run('release', 'scripts/migrate.ts');
  const [code] = await once(release.child, 'exit');
  t.is(code, 0, release.output());
  t.regex(release.output(), /"msg":"migrations applied"/);
  const tables = await directQuery<{ n: number }>(
    `select count(*)::int as n from pg_tables where tablename in ('charges', 'ledger_entries', 'rate_limits')`,
  );
  t.is(tables[0].n, 3);
  t.is((await directQuery<{ n: number }>(`select count(*)::int as n from pgboss.queue`))[0].n > 0, true);
});

test.serial('settlement, webhooks, listings and rate limits work behind PgBouncer (transaction pooling)', async (t) => {
  const port = await freePort();
  await startApp('api', { PORT: String(port) });
  await startApp('worker'); // no DATABASE_DIRECT_URL: polls its queues
  await startApp('webhooks', { DATABASE_DIRECT_URL: direct }); // LISTENs on the direct connection
  const ready = Date.now();
  const base = `http://127.0.0.1:${port}`;

  const email = 'padaria@example.com';
  const reg = await client(base).post('/v1/auth/register', {
    email,
    password: 'uma senha forte',
    name: 'Padaria São João',
    document: '11222333000181',
  });
  t.is(reg.status, 201);
  const http = client(base, reg.body.token);
  // the event stream, open all along: the API has no direct URL, so it polls for positions
  const stream = await openSse(base, '/v1/events/stream', reg.body.token);
  t.teardown(() => stream.close());
  await operator('kyc:approve', '--email', email);
  await operator('acquirer:configure', '--email', email);
  t.is((await http.post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: email })).status, 201);
  const hook = await http.post('/v1/webhooks/merchant', { url: receiver.url('/pix'), events: ['charge.paid'] });
  t.is(hook.status, 201);

  // settlement: sandbox pay -> PAID -> ledger
  const charge = (await http.post('/v1/charges', { amount: 2590, description: 'Bolo' }, { 'x-idempotency-key': 'p-1' }))
    .body.charge;
  t.is((await http.post(`/v1/sandbox/charges/${charge.id}/pay`)).status, 202);
  await waitUntil(async () => (await http.get(`/v1/charges/${charge.id}`)).body.charge.status === 'PAID', 15_000);
  t.deepEqual((await http.get('/v1/merchants/me/balance')).body, { available: 2590 - 26, blocked: 0, currency: 'BRL' });
  t.like(await operator('ledger:verify'), { ok: true, problemCount: 0 });

  // the webhook, signed, at a real receiver
  const [delivery] = await receiver.waitFor(1, 15_000);
  const event = new Webhook(hook.body.webhook.secret.replace(/^wh_/, '')).verify(
    delivery.body,
    delivery.headers as Record<string, string>,
  ) as { event: string; data: { id: string } };
  t.like(event, { event: 'charge.paid', data: { id: charge.id } });

  // a withdrawal: the worker's transfer and its sandbox outcome, both through queues
  const w = await http.post('/v1/merchants/me/withdrawals', { amount: 1000, pixKey: email, pixKeyType: 'EMAIL' });
  t.is(w.status, 201);
  const withdrawal = `/v1/merchants/me/withdrawals/${w.body.withdrawal.id}`;
  const completed = async () => (await http.get(withdrawal)).body.withdrawal.status === 'COMPLETED';
  await waitUntil(completed, 15_000, 'withdrawal completed');

  // listings
  const list = (await http.get('/v1/charges?limit=10')).body;
  t.like(list, { total: 1, charges: [{ id: charge.id, status: 'PAID' }] });
  t.like((await http.get('/v1/merchants/me/withdrawals')).body, { total: 1 });

  // the stream saw every event, in the order the listing's ids were positioned
  const events = (await http.get('/v1/events')).body;
  t.is(events.total, 3);
  await stream.waitForEvents(events.total, 10_000);
  t.deepEqual(
    stream.events.map((e) => e.event),
    ['pixkey.updated', 'charge.paid', 'withdraw.completed'],
  );

  // the rate limiter counts every request in PostgreSQL (a named statement on a pooler would fail over to memory)
  const key = `api:${(await http.get('/v1/merchants/me')).body.merchant.id}`;
  await directQuery('delete from rate_limits where key = $1', [key]);
  const burst = await Promise.all(Array.from({ length: 40 }, () => http.get('/v1/merchants/me')));
  t.true(burst.every((r) => r.status === 200));
  t.deepEqual(await directQuery('select points from rate_limits where key = $1', [key]), [{ points: 40 }]);

  // past a LISTEN heartbeat: no process logged an error (a lost LISTEN, a prepared statement, a session setting)
  await new Promise((r) => setTimeout(r, Math.max(0, ready + HEARTBEAT_MS + 3000 - Date.now())));
  for (const p of procs) {
    const bad = p
      .output()
      .split('\n')
      .filter((l) => /"level":(4|5|6)\d/.test(l));
    t.deepEqual(bad, [], `${p.name} logged warnings or errors`);
  }

  // the daemon's LISTEN is on the direct connection (its own, not pg-boss': it fetches without pg-boss' workers);
  // nothing else bypasses the pooler
  const listeners = await directQuery<{ application_name: string }>(
    `select application_name from pg_stat_activity where datname = current_database() and client_port is not null
       and application_name like '%listen%'`,
  );
  t.deepEqual(
    listeners.map((l) => l.application_name),
    ['webhooks-listen'],
  );

  // and every process stops cleanly through the pooler
  for (const p of procs.filter((x) => x.child.exitCode === null)) {
    const exited = once(p.child, 'exit');
    p.child.kill('SIGTERM');
    t.is((await exited)[0], 0, `${p.name}:\n${p.output()}`);
  }
});
