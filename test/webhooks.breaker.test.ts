import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';
import { TEST_SENDS_LIMITED, TEST_SENDS_PER_MINUTE } from '../src/webhooks/deliveries.service.ts';

// The per-endpoint circuit breaker (src/webhooks/breaker.ts) and the cap on test sends (issue 31). One daemon; a
// merchant's deliveries go one at a time (WEBHOOK_CONCURRENCY=1), so their order is the order of the events,
// and 3 unhealthy outcomes in a row open a breaker for 2.5 s (the real schedule: WEBHOOK_RETRY_SCALE=1).
let app: TestApp;
let stopDaemon: () => Promise<void>;
const receivers: Receiver[] = [];
test.before(async () => {
  app = await startTestApp();
  stopDaemon = await startBackground(app, 'webhooks', {
    WEBHOOK_CONCURRENCY: '1',
    WEBHOOK_BREAKER_THRESHOLD: '3',
    WEBHOOK_TIMEOUT_MS: '500',
  });
});
test.after.always(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stopDaemon?.();
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';
const N = 10;

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

type Row = { delivery_id: string; status: string; attempts: number; status_code: number | null; response: string };
const rows = (webhookId: string) =>
  app.orm.em
    .fork()
    .execute<Row[]>(
      'select delivery_id, status, attempts, status_code, response from webhook_deliveries where webhook_id = ? order by created_at, id',
      [webhookId],
    );
const breaker = async (webhookId: string): Promise<{ open: boolean; failures: number } | undefined> =>
  (
    await app.orm.em
      .fork()
      .execute<{ open: boolean; failures: number }[]>(
        'select open_until > clock_timestamp() as open, failures from webhook_breakers where webhook_id = ?',
        [webhookId],
      )
  )[0];

async function events(merchantId: string, n: number) {
  await app.orm.em.fork().transactional(async (tx) => {
    for (let i = 0; i < n; i++) await recordEvent(tx, app.boss, merchantId, 'charge.paid', { seq: i });
  });
}

for (const [kind, failing] of [
  ['answers 503', { status: 503 }],
  ['never answers (timeouts)', { hang: true }],
] as const)
  test.serial(
    `an endpoint that ${kind}: 3 in a row open its breaker, its deliveries are held (recorded, not sent) until a probe succeeds`,
    async (t) => {
      const r = await receiver(() => failing);
      const m = await createMerchant(app);
      const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
      await events(m.merchantId, N);
      const first = await waitUntil(async () => {
        const all = await rows(w.id);
        return all.every((d) => d.attempts >= 1) && all;
      }, 20_000);
      const sent = r.requests.length;
      const state = await breaker(w.id);
      t.truthy(state, 'the breaker has a row');
      // a probe goes only once the cooldown has ended; while it runs, nothing but the first three reached the endpoint
      if (state?.open) t.is(sent, 3, 'three attempts reached the endpoint, the rest were held');
      else t.log('the cooldown ended before the check (a slow machine): probes may have gone');
      const held = first.filter((d) => d.response.startsWith('Não enviada'));
      t.true(held.length >= N - sent, `${held.length} held`);
      for (const d of held) t.like(d, { status: 'PENDING', attempts: 1, status_code: null });

      // the endpoint recovers: after the cooldown a due retry is the probe, its success closes the breaker, and every
      // delivery goes through (the held ones' retries were due 5 s after their held attempt)
      r.reply(() => ({ status: 200, body: 'ok' }));
      const done = await waitUntil(async () => {
        const all = await rows(w.id);
        return all.every((d) => d.status === 'SUCCEEDED') && all;
      }, 60_000);
      t.is(await breaker(w.id), undefined, 'closed: its row is gone');
      const received = new Map<string, number>();
      for (const q of r.requests) {
        const id = String(q.headers['webhook-id']);
        received.set(id, (received.get(id) ?? 0) + 1);
      }
      for (const d of held) t.is(received.get(d.delivery_id), 1, 'a held attempt was never sent');
      t.is(
        done.reduce((n, d) => n + d.attempts, 0) - r.requests.length,
        held.length,
        'every attempt was sent but the held ones',
      );
    },
  );

test.serial(
  'a success between unhealthy answers starts the count again: an endpoint failing one in two keeps its deliveries',
  async (t) => {
    const r = await receiver((_req, i) => (i % 2 === 0 ? { status: 500 } : { status: 200, body: 'ok' }));
    const m = await createMerchant(app);
    const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
    await events(m.merchantId, N);
    await waitUntil(async () => (await rows(w.id)).every((d) => d.attempts >= 1), 20_000);
    t.is(r.requests.length, N, 'every first attempt was sent');
    t.false((await rows(w.id)).some((d) => d.response.startsWith('Não enviada')));
  },
);

test.serial(
  `test sends: at most ${TEST_SENDS_PER_MINUTE} a minute per webhook, 429 with Retry-After beyond, even at once`,
  async (t) => {
    const r = await receiver();
    const m = await createMerchant(app);
    const [a, b] = [
      (await m.http.post(PATH, { url: r.url('/a') })).body.webhook,
      (await m.http.post(PATH, { url: r.url('/b') })).body.webhook,
    ];
    const sends = await Promise.all(
      Array.from({ length: TEST_SENDS_PER_MINUTE + 3 }, () =>
        m.http.post(`${PATH}/${a.id}/test`, { event: 'charge.paid' }),
      ),
    );
    t.is(sends.filter((s) => s.status === 202).length, TEST_SENDS_PER_MINUTE);
    const refused = sends.filter((s) => s.status === 429);
    t.is(refused.length, 3);
    for (const s of refused) {
      t.deepEqual(s.body, { code: 'test_sends_limited', message: TEST_SENDS_LIMITED });
      const after = Number(s.headers.get('retry-after'));
      t.true(after >= 1 && after <= 60, `Retry-After ${after}`);
    }
    const logs = await m.http.get(`${PATH}/${a.id}/deliveries?limit=100`);
    t.is(logs.body.total, TEST_SENDS_PER_MINUTE, 'a refused send logs nothing');
    t.is(
      (await m.http.post(`${PATH}/${b.id}/test`, { event: 'charge.paid' })).status,
      202,
      'another webhook has its own',
    );
    // an event is not a test send: the business keeps its deliveries
    await events(m.merchantId, 1);
    await waitUntil(async () => (await rows(a.id)).length === TEST_SENDS_PER_MINUTE + 1);
  },
);
