import test from 'ava';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Received, type Receiver } from './support/receiver.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';
import type { EventType } from '../src/webhooks/catalog.ts';
import { QUEUES } from '../src/platform/queue.ts';

// One daemon for the file, with the retry schedule compressed 1000x and a 500 ms receiver timeout.
let app: TestApp;
let stopDaemon: () => Promise<void>;
const receivers: Receiver[] = [];
test.before(async () => {
  app = await startTestApp();
  stopDaemon = await startBackground(app, 'webhooks', { WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_TIMEOUT_MS: '500' });
});
test.after.always(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stopDaemon?.();
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

// What a charge, withdrawal or infraction service does: the event is recorded inside its own transaction.
async function emit(merchantId: string, type: EventType, data: Record<string, unknown> = {}) {
  const event = await app.orm.em.fork().transactional((tx) => recordEvent(tx, app.boss, merchantId, type, data));
  return { id: event.id, committedAt: performance.now() };
}

type DeliveryRow = {
  id: string;
  delivery_id: string;
  event_type: string;
  status: string;
  attempts: number;
  status_code: number | null;
  response: string | null;
  success: boolean;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  payload: string;
};
const deliveries = (webhookId: string) =>
  app.orm.em
    .fork()
    .execute<DeliveryRow[]>('select * from webhook_deliveries where webhook_id = ? order by created_at, id', [
      webhookId,
    ]);

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

test('an event reaches the receiver within milliseconds, signed so that standardwebhooks verifies it, and is logged', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver();
  const w = (await m.http.post(PATH, { url: r.url(), events: ['charge.paid'] })).body.webhook;
  const data = { id: 'c1', amount: 1990, status: 'PAID', customer: null };
  const { id, committedAt } = await emit(m.merchantId, 'charge.paid', data);
  const [req] = await r.waitFor(1);
  t.log(`commit -> receiver: ${(req.at - committedAt).toFixed(1)} ms`);

  t.is(req.method, 'POST');
  t.is(req.headers['content-type'], 'application/json');
  t.regex(String(req.headers['user-agent']), /^pix-payments-webhooks\//);
  t.regex(String(req.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);
  t.true(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000) < 5);
  t.regex(String(req.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
  const verified = new StandardWebhook(w.secret.slice('wh_'.length)).verify(req.body, headersOf(req)) as Record<
    string,
    unknown
  >;
  t.deepEqual(verified, { id, event: 'charge.paid', createdAt: verified.createdAt, data });
  t.deepEqual(Object.keys(JSON.parse(req.body)), ['id', 'event', 'createdAt', 'data']);
  t.throws(() => new StandardWebhook(w.secret.slice(3)).verify(req.body.replace('1990', '1991'), headersOf(req)), {
    message: /No matching signature/,
  });
  t.throws(() => new StandardWebhook(Buffer.alloc(32, 1).toString('base64')).verify(req.body, headersOf(req)));

  const row = await waitUntil(
    async () => (await deliveries(w.id)).find((d) => d.status === 'SUCCEEDED'),
    5000,
    'the log',
  );
  t.like(row, {
    delivery_id: req.headers['webhook-id'],
    payload: req.body,
    status_code: 200,
    response: 'ok',
    attempts: 1,
    success: true,
    next_attempt_at: null,
  });
  const log = (await m.http.get(PATH)).body.webhooks[0].logs[0];
  t.like(log, {
    deliveryId: req.headers['webhook-id'],
    event: 'charge.paid',
    url: r.url(),
    payload: req.body,
    statusCode: 200,
    response: 'ok',
    attempts: 1,
    success: true,
  });
});

test('only ACTIVE webhooks subscribed to the event (or to all) of that merchant receive it', async (t) => {
  const m = await createMerchant(app);
  const other = await createMerchant(app);
  const r = await receiver();
  const only = (await m.http.post(PATH, { url: r.url('/only-withdrawals'), events: ['withdraw.completed'] })).body
    .webhook;
  const all = (await m.http.post(PATH, { url: r.url('/all') })).body.webhook;
  const foreign = (await other.http.post(PATH, { url: r.url('/other-merchant') })).body.webhook;
  await emit(m.merchantId, 'charge.paid', { n: 1 });
  await emit(m.merchantId, 'withdraw.completed', { n: 2 });
  await waitUntil(
    async () =>
      (await deliveries(all.id)).filter((d) => d.success).length === 2 &&
      (await deliveries(only.id)).some((d) => d.success),
    5000,
  );
  // Both fan-outs have committed by now, so the delivery rows are final.
  t.deepEqual(
    (await deliveries(only.id)).map((d) => d.event_type),
    ['withdraw.completed'],
  );
  t.deepEqual((await deliveries(all.id)).map((d) => d.event_type).sort(), ['charge.paid', 'withdraw.completed']);
  t.deepEqual(await deliveries(foreign.id), []);
  t.deepEqual(r.requests.map((q) => q.path).sort(), ['/all', '/all', '/only-withdrawals']);
});

test('INACTIVE pauses deliveries and ACTIVE resumes them', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver();
  const paused = (await m.http.post(PATH, { url: r.url('/paused') })).body.webhook;
  const sentinel = (await m.http.post(PATH, { url: r.url('/sentinel') })).body.webhook;
  await m.http.patch(`${PATH}/${paused.id}`, { status: 'INACTIVE' });
  await emit(m.merchantId, 'pixkey.updated', { n: 1 });
  await waitUntil(async () => (await deliveries(sentinel.id)).some((d) => d.success), 5000);
  t.deepEqual(await deliveries(paused.id), [], 'no delivery while paused');

  await m.http.patch(`${PATH}/${paused.id}`, { status: 'ACTIVE' });
  await emit(m.merchantId, 'pixkey.updated', { n: 2 });
  await waitUntil(async () => (await deliveries(paused.id)).some((d) => d.success), 5000);
  const rows = await deliveries(paused.id);
  t.is(rows.length, 1);
  t.deepEqual(JSON.parse(rows[0].payload).data, { n: 2 });
  t.is(r.requests.filter((q) => q.path === '/paused').length, 1);
});

// A 503 with Retry-After: 2 parks the retry for 2 s (instead of the scaled 5 ms): time to pause or delete the webhook.
for (const change of ['INACTIVE', 'deleted'] as const) {
  test(`a webhook ${change} while a retry is queued gets no further attempt`, async (t) => {
    const m = await createMerchant(app);
    const r = await receiver(() => ({ status: 503, body: 'em manutenção', headers: { 'retry-after': '2' } }));
    const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
    await emit(m.merchantId, 'infraction.received', { id: 'i1' });
    const queued = await waitUntil(async () => (await deliveries(w.id)).find((d) => d.attempts === 1), 5000);
    t.like(queued, { status: 'PENDING', status_code: 503, response: 'em manutenção', success: false });
    const wait = Date.parse(queued.next_attempt_at!) - Date.parse(queued.last_attempt_at!);
    t.true(wait >= 1900 && wait < 3000, `Retry-After honoured: next attempt ${wait} ms later`);

    if (change === 'deleted') await m.http.del(`${PATH}/${w.id}`);
    else await m.http.patch(`${PATH}/${w.id}`, { status: 'INACTIVE' });
    const canceled = await waitUntil(
      async () => (await deliveries(w.id)).find((d) => d.status === 'CANCELED'),
      6000,
      'the cancellation',
    );
    t.like(canceled, { attempts: 1, next_attempt_at: null });
    t.is(r.requests.length, 1);
    await emit(m.merchantId, 'infraction.updated', { id: 'i1' });
    await new Promise((res) => setTimeout(res, 300));
    t.is((await deliveries(w.id)).length, 1, 'no delivery for later events either');
  });
}

test('a receiver failing twice then succeeding: three attempts under one webhook-id, then success', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver((_req, n) =>
    n < 2 ? { status: 500, body: `falha ${n + 1}` } : { status: 200, body: 'recebido' },
  );
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  await emit(m.merchantId, 'withdraw.failed', { id: 'w1' });
  const requests = await r.waitFor(3);
  const row = await waitUntil(async () => (await deliveries(w.id)).find((d) => d.status === 'SUCCEEDED'), 5000);
  t.like(row, { attempts: 3, success: true, status_code: 200, response: 'recebido' });
  t.is(new Set(requests.map((q) => q.headers['webhook-id'])).size, 1, 'same webhook-id on every attempt');
  t.true(
    requests.every((q) => q.body === row.payload),
    'the same bytes every time',
  );
  const verifier = new StandardWebhook(w.secret.slice(3));
  for (const q of requests) t.notThrows(() => verifier.verify(q.body, headersOf(q)));
  await new Promise((res) => setTimeout(res, 300));
  t.is(r.requests.length, 3, 'a success is never re-sent');
});

test('a receiver that never answers: the timeout is recorded and retried', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver(() => ({ hang: true }));
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  await emit(m.merchantId, 'charge.refunded', { id: 'c9' });
  const row = await waitUntil(async () => (await deliveries(w.id)).find((d) => d.attempts >= 1), 5000);
  t.like(row, {
    status: 'PENDING',
    status_code: null,
    success: false,
    response: 'Tempo esgotado: o destino não respondeu em 500 ms',
  });
  await r.waitFor(2, 5000);
  await m.http.del(`${PATH}/${w.id}`);
});

test('the recorded response is cut at 4 KB; a 2xx with any body is a success', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver(() => ({ status: 202, body: 'é'.repeat(60_000) }));
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  await emit(m.merchantId, 'infraction.refund_completed', {});
  const row = await waitUntil(async () => (await deliveries(w.id)).find((d) => d.attempts === 1), 5000);
  t.like(row, { status: 'SUCCEEDED', success: true, status_code: 202 });
  t.true(Buffer.byteLength(row.response!) <= 4096 && row.response!.length >= 2047, `${row.response!.length} chars`);
  t.true(row.response!.startsWith('éé'));
});

test("events are written and enqueued in the caller's transaction: a rollback leaves neither event, delivery nor job", async (t) => {
  const m = await createMerchant(app);
  const r = await receiver();
  await m.http.post(PATH, { url: r.url('/paid'), events: ['charge.paid'] });
  await m.http.post(PATH, { url: r.url('/withdrawals'), events: ['withdraw.completed'] });
  const jobsFor = async (eventId: string) =>
    Number(
      (
        await app.orm.em.fork().execute<{ n: string }[]>(
          `select count(*) as n from pgboss.job j join webhook_deliveries d on d.id = (j.data->>'id')::uuid
      where j.name = ? and d.event_id = ?`,
          [QUEUES.webhookDeliver, eventId],
        )
      )[0].n,
    );
  const eventsWith = async (eventId: string) =>
    (await app.orm.em.fork().execute('select id from events where id = ?', [eventId])).length;

  let rolledBack = '';
  await t.throwsAsync(
    app.orm.em.fork().transactional(async (tx) => {
      rolledBack = (await recordEvent(tx, app.boss, m.merchantId, 'charge.paid', { n: 1 })).id;
      t.is(await jobsFor(rolledBack), 0, 'not visible outside the transaction before commit');
      throw new Error('the business change failed');
    }),
    { message: 'the business change failed' },
  );
  t.truthy(rolledBack);
  t.is(await eventsWith(rolledBack), 0);
  t.is(await jobsFor(rolledBack), 0);

  await t.throwsAsync(
    recordEvent(app.orm.em.fork(), app.boss, m.merchantId, 'charge.paid', { n: 0 }),
    { message: /inside the transaction/ },
    'outside a transaction nothing is written',
  );
  const { id: committed } = await emit(m.merchantId, 'charge.paid', { n: 2 });
  t.is(await eventsWith(committed), 1);
  t.is(await jobsFor(committed), 1, 'one delivery and job: the charge.paid subscriber only');
  await r.waitFor(1, 5000);
  t.deepEqual(
    r.requests.map((q) => q.path),
    ['/paid'],
  );
});

test('a reserved header a webhook stored before it was refused is left out, and the delivery goes through', async (t) => {
  const r = await receiver();
  const m = await createMerchant(app);
  const w = (await m.http.post(PATH, { url: r.url(), headers: { 'X-Tenant': 'loja-1' } })).body.webhook;
  // as an earlier release let it be stored: with it, every attempt failed on our side (ERR_HTTP_TRAILER_INVALID)
  await app.orm.em
    .fork()
    .execute(`update webhooks set headers = ?::jsonb where id = ?`, [
      JSON.stringify({ 'X-Tenant': 'loja-1', Trailer: 'X-Checksum', Upgrade: 'h2c' }),
      w.id,
    ]);
  await emit(m.merchantId, 'charge.paid', { n: 1 });
  const [req] = await r.waitFor(1);
  t.is(req.headers['x-tenant'], 'loja-1');
  t.is(req.headers.trailer, undefined);
  t.is(req.headers.upgrade, undefined);
  const [row] = await waitUntil(async () => {
    const rows = await deliveries(w.id);
    return rows[0]?.status === 'SUCCEEDED' && rows;
  });
  t.like(row, { attempts: 1, status_code: 200, success: true });
});
