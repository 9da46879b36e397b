import test from 'ava';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';

// Webhook self-service with real daemon processes: the per-endpoint rate limit shared by two daemons, and resend,
// recover and test deliveries queued while no daemon runs and delivered across a SIGKILL.
let app: TestApp;
const children = new Set<ChildProcess>();
const receivers: Receiver[] = [];
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await Promise.all([...children].map(kill));
  await Promise.all(receivers.map((r) => r.close()));
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';

async function daemon(env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = fork('apps/webhooks/main.ts', [], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: app.databaseUrl,
      LOG_LEVEL: 'silent',
      WEBHOOK_RETRY_SCALE: '0.00001',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m) => m === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`daemon exited with ${code} before it was ready`)));
  });
  return child;
}

async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const emit = (merchantId: string, n: number, data: (i: number) => Record<string, unknown> = (i) => ({ seq: i })) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      app.orm.em.fork().transactional((tx) => recordEvent(tx, app.boss, merchantId, 'charge.paid', data(i))),
    ),
  );

const statuses = (webhookId: string) =>
  app.orm.em
    .fork()
    .execute<{ status: string; n: number }[]>(
      'select status, count(*)::int as n from webhook_deliveries where webhook_id = ? group by status',
      [webhookId],
    )
    .then((rows) => Object.fromEntries(rows.map((r) => [r.status, r.n])));

test.serial(
  'rateLimit holds across two daemons (no second holds more than the limit) and never slows another endpoint',
  async (t) => {
    const daemons = [await daemon(), await daemon()];
    const RATE = 1;
    const limited = await receiver();
    const free = await receiver();
    const m = await createMerchant(app);
    const other = await createMerchant(app);
    const w = (await m.http.post(PATH, { url: limited.url(), rateLimit: RATE })).body.webhook;
    await other.http.post(PATH, { url: free.url() });

    const N = 6;
    await Promise.all([emit(m.merchantId, N), emit(other.merchantId, N)]);
    const arrivals = (await limited.waitFor(N, 30_000)).map((r) => r.at).sort((a, b) => a - b);
    t.true(free.requests.length === N, 'the other merchant got all of its deliveries first');
    t.true(Math.max(...free.requests.map((r) => r.at)) < arrivals[N - 1], 'before the limited one was done');
    // POSTs start at slots 1/RATE s apart, whichever daemon sends them, so at most RATE start in any second. At the
    // receiver, a POST its process started late (a loaded machine, a cold process' first connection) can land next
    // to the following one: allowed here up to one slot (1/RATE s) late, hence RATE + 1. Unlimited, the 6 would
    // arrive within a few milliseconds of each other.
    const busiest = Math.max(...arrivals.map((at) => arrivals.filter((a) => a >= at && a < at + 1000).length));
    t.log(
      `at most ${busiest} deliveries in any second; first to last ${(arrivals[N - 1] - arrivals[0]).toFixed(0)} ms`,
    );
    t.true(busiest <= RATE + 1, `${busiest} deliveries within one second`);
    t.true(arrivals[N - 1] - arrivals[0] >= ((N - 2) / RATE) * 1000, 'the whole run keeps to the rate');
    await waitUntil(async () => (await statuses(w.id)).SUCCEEDED === N);
    const ids = new Set(limited.requests.map((r) => r.headers['webhook-id']));
    t.is(ids.size, N, 'every delivery once: the deferred ones were not sent twice');
    t.is(limited.requests.length, N);
    await Promise.all(daemons.map(kill));
  },
);

test.serial(
  'resend, recover and test deliveries queued with no daemon running are delivered across a SIGKILL',
  async (t) => {
    const first = await daemon();
    const r = await receiver(() => ({ status: 500 }));
    const m = await createMerchant(app);
    const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
    const N = 30;
    await emit(m.merchantId, N);
    await waitUntil(async () => (await statuses(w.id)).FAILED === N, 30_000, 'every delivery to fail for good');
    await kill(first);

    // no daemon: the rows and their jobs are committed together, so nothing is lost while none runs
    const logs = (await m.http.get(`${PATH}/${w.id}/deliveries?limit=100`)).body.deliveries;
    const recovered = await m.http.post(`${PATH}/${w.id}/recover`, { since: '2020-01-01T00:00:00Z' });
    t.deepEqual(recovered.body, { recovered: N });
    const tested = (await m.http.post(`${PATH}/${w.id}/test`, { event: 'infraction.received' })).body.delivery;
    t.is((await m.http.post(`${PATH}/${w.id}/deliveries/${logs[0].id}/resend`)).status, 409, 'already PENDING again');

    const before = r.requests.length;
    // one answer in three hangs, so the kill lands with POSTs in flight
    r.reply((_req, i) => (i % 3 === 0 ? { hang: true } : { status: 200, body: 'ok' }));
    const second = await daemon({ WEBHOOK_TIMEOUT_MS: '300' });
    await r.waitFor(before + 5, 20_000);
    await kill(second);
    r.reply(() => ({ status: 200, body: 'ok' }));
    await daemon();
    await waitUntil(async () => (await statuses(w.id)).SUCCEEDED === N + 1, 90_000, 'every delivery to succeed');
    const seen = new Set(r.requests.slice(before).map((q) => String(q.headers['webhook-id'])));
    for (const log of logs) t.true(seen.has(log.deliveryId), log.deliveryId);
    t.true(seen.has(tested.deliveryId));
  },
);
