import test from 'ava';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { startTestApp, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { startReceiver, waitUntil } from './support/receiver.ts';
import { expireCharges } from '../src/charges/charges.states.ts';
import { QUEUES } from '../src/platform/queue.ts';

// Crash recovery with real processes killed by SIGKILL: the jobs a dead worker or daemon held are taken over by the
// next
// one within seconds (heartbeats), not after pg-boss's 15-minute default expiry.
let app: TestApp;
const children = new Set<ChildProcess>();
test.before(async () => {
  app = await startTestApp();
});
test.beforeEach(async () => {
  await Promise.all([...children].map(kill));
}); // each test decides which processes run
test.after.always(async () => {
  await Promise.all([...children].map(kill));
  await app?.close();
});

// Generous: recovery takes ~10-20 s (heartbeat + supervision); the old behaviour took 15 minutes.
const RECOVERY_MS = 60_000;

// A worker or daemon as its own OS process, as a dyno runs it.
async function startProcess(kind: 'worker' | 'webhooks', env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = fork(`apps/${kind}/main.ts`, [], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: app.databaseUrl,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m) => m === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code} before it was ready`)));
  });
  return child;
}

async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);
const jobState = async (queue: string, field: string, value: string) =>
  (
    await sql<{ state: string }>(`select state from pgboss.job where name = ? and data->>'${field}' = ?`, [
      queue,
      value,
    ])
  )[0]?.state;

test.serial(
  'a worker killed inside a settlement: the next worker pays the charge, even after the expiry sweep canceled it',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const charge = (await m.http.post('/v1/charges', { amount: 10_000, description: 'pedido', expiresIn: 60 })).body
      .charge;
    // Hold the charge row so the worker's settlement blocks inside its transaction, with its job claimed.
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select 1 from charges where id = $1 for update', [charge.id]);

    const worker = await startProcess('worker');
    t.is((await m.http.post(`/v1/sandbox/charges/${charge.id}/pay`)).status, 202);
    await waitUntil(
      async () => (await jobState(QUEUES.acquirerNotification, 'txid', charge.txid)) === 'active',
      10_000,
      'settlement claimed',
    );
    await waitUntil(
      async () =>
        (
          await sql(
            `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%update charges c set status%'`,
          )
        ).length > 0,
      10_000,
      'settlement waiting inside its transaction',
    );
    await kill(worker);
    // The charge expires right after the payment's time, and the sweep runs before anyone settles it.
    await holder.query('update charges set expires_at = clock_timestamp() where id = $1', [charge.id]);
    await holder.query('commit');
    await holder.end();
    // (the dead worker's backend lets go of the row once PostgreSQL notices its client is gone)
    await waitUntil(async () => (await expireCharges(app.deps, app.orm.em.fork())) === 1, 10_000, 'the expiry sweep');
    t.is((await m.http.get(`/v1/charges/${charge.id}`)).body.charge.status, 'CANCELED');
    t.is(
      await jobState(QUEUES.acquirerNotification, 'txid', charge.txid),
      'active',
      'the dead worker still holds the job',
    );

    const started = Date.now();
    await startProcess('worker');
    const paid = await waitUntil(
      async () => {
        const c = (await m.http.get(`/v1/charges/${charge.id}`)).body.charge;
        return c.status === 'PAID' && c;
      },
      RECOVERY_MS,
      'the charge PAID by the next worker',
    );
    t.log(`recovered in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    t.is(paid.canceledAt, null);
    t.true(Date.parse(paid.paidAt) <= Date.parse(paid.expiresAt), 'paid within its validity');
    t.deepEqual((await m.http.get('/v1/merchants/me/balance')).body, {
      available: 10_000 - 99,
      blocked: 0,
      currency: 'BRL',
    });
    const credits = await sql<{ n: string }>(
      `select count(*) as n from ledger_transactions where kind = 'charge.payment' and reference_id = ?`,
      [charge.id],
    );
    t.is(Number(credits[0].n), 1, 'credited exactly once');
    const events = await sql<{ type: string }>('select type from events where merchant_id = ?', [m.merchantId]);
    t.deepEqual(
      events.map((e) => e.type).filter((e) => e.startsWith('charge.')),
      ['charge.paid'],
    );
  },
);

test.serial(
  'a daemon killed mid-batch: answered deliveries were recorded as they ended and are not re-sent; the one in flight is delivered by the next daemon',
  async (t) => {
    const fast = await startReceiver();
    let hang = true;
    const slow = await startReceiver(() => (hang ? { hang: true } : { status: 200, body: 'ok' }));
    t.teardown(() => Promise.all([fast.close(), slow.close()]));
    const m = await createOnboardedMerchant(app);
    const fastHook = (await m.http.post('/v1/webhooks/merchant', { url: fast.url(), events: ['pixkey.updated'] })).body
      .webhook;
    const slowHook = (await m.http.post('/v1/webhooks/merchant', { url: slow.url(), events: ['pixkey.updated'] })).body
      .webhook;

    const daemon = await startProcess('webhooks', { WEBHOOK_TIMEOUT_MS: '120000' });
    t.is(
      (await m.http.post('/v1/merchants/me/pix-keys', { type: 'CHAVE_ALEATORIA', key: crypto.randomUUID() })).status,
      201,
    );
    await fast.waitFor(1);
    await slow.waitFor(1);
    // The fast answer is on record while the slow receiver still holds its request.
    const recorded = await waitUntil(
      async () =>
        (
          await sql<{ success: boolean; attempts: number }>(
            'select success, attempts from webhook_deliveries where webhook_id = ?',
            [fastHook.id],
          )
        )[0]?.success,
      10_000,
      'the fast delivery recorded',
    );
    t.true(recorded);
    await kill(daemon);

    hang = false;
    const started = Date.now();
    await startProcess('webhooks');
    const row = await waitUntil(
      async () =>
        (
          await sql<{ success: boolean; attempts: number }>(
            'select success, attempts from webhook_deliveries where webhook_id = ?',
            [slowHook.id],
          )
        )[0]?.success &&
        (
          await sql<{ attempts: number }>('select attempts from webhook_deliveries where webhook_id = ?', [slowHook.id])
        )[0],
      RECOVERY_MS,
      'the slow delivery',
    );
    t.log(`recovered in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    t.is(row.attempts, 1, 'the attempt lost with the dead daemon was never recorded; the next one succeeded');
    t.is(slow.requests.length, 2, 'the POST in flight at the crash was sent again (at least once)');
    t.is(
      slow.requests[0].headers['webhook-id'],
      slow.requests[1].headers['webhook-id'],
      'with the same webhook-id, so the receiver can deduplicate',
    );
    await new Promise((r) => setTimeout(r, 500));
    t.is(fast.requests.length, 1, 'the recorded success was not sent again');
  },
);

test.serial('refunds queued while no worker runs drain together when one starts', async (t) => {
  const m = await createOnboardedMerchant(app);
  const worker = await startProcess('worker');
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const c = (await m.http.post('/v1/charges', { amount: 1000, description: `pedido ${i}` })).body.charge;
    await m.http.post(`/v1/sandbox/charges/${c.id}/pay`);
    ids.push(c.id);
  }
  await waitUntil(
    async () =>
      (await sql(`select 1 from charges where id = any(?::uuid[]) and status = 'PAID'`, [`{${ids.join(',')}}`]))
        .length === ids.length,
    20_000,
    'charges paid',
  );
  await kill(worker);
  const refunds: string[] = [];
  for (const id of ids) {
    const res = await m.http.post(`/v1/charges/${id}/refund`);
    t.is(res.status, 202);
    refunds.push(res.body.refund.id);
  }
  const started = Date.now();
  await startProcess('worker');
  await waitUntil(
    async () =>
      (
        await sql(
          `select 1 from pgboss.job where name = ? and state = 'completed' and data->>'refundId' = any(?::text[])`,
          [QUEUES.refundSend, `{${refunds.join(',')}}`],
        )
      ).length === ids.length,
    20_000,
    'every refund sent',
  );
  t.log(`${ids.length} refunds drained in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const starts = await sql<{ n: string }>(
    `select count(distinct date_trunc('second', started_on)) as n from pgboss.job where name = ? and data->>'refundId' = any(?::text[])`,
    [QUEUES.refundSend, `{${refunds.join(',')}}`],
  );
  t.true(Number(starts[0].n) <= 2, `taken in batches, not one per poll (${starts[0].n} distinct seconds)`);
});
