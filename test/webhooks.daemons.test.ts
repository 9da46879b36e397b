import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil } from './support/receiver.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';

// Two daemons over one database, as two dynos would run: every event must still reach each webhook exactly once.
let app: TestApp;
const stops: (() => Promise<void>)[] = [];
test.before(async () => {
  app = await startTestApp();
  for (let i = 0; i < 2; i++) stops.push(await startBackground(app, 'webhooks', { WEBHOOK_RETRY_SCALE: '0.001' }));
});
test.after.always(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';

test.serial('two daemons at once deliver every event to every subscribed webhook exactly once', async (t) => {
  const m = await createMerchant(app);
  // The first attempt of every fifth event fails, so retries run across both daemons too.
  const failedOnce = new Set<string>();
  const r = await startReceiver((req) => {
    const id = String(req.headers['webhook-id']);
    if (JSON.parse(req.body).data.seq % 5 !== 0 || failedOnce.has(id)) return { status: 200, body: 'ok' };
    failedOnce.add(id);
    return { status: 500 };
  });
  t.teardown(() => r.close());
  const hooks: string[] = [];
  for (const path of ['/a', '/b']) hooks.push((await m.http.post(PATH, { url: r.url(path) })).body.webhook.id);

  const EVENTS = 100;
  // Ten concurrent producers, ten events each, each event in its own transaction.
  await Promise.all(
    Array.from({ length: 10 }, (_, p) =>
      (async () => {
        for (let i = 0; i < 10; i++) {
          await app.orm.em
            .fork()
            .transactional((tx) => recordEvent(tx, app.boss, m.merchantId, 'charge.paid', { seq: p * 10 + i }));
        }
      })(),
    ),
  );

  const expected = EVENTS * 2 + (EVENTS / 5) * 2; // every delivery once, plus one failed first attempt for each fifth
  await r.waitFor(expected, 20_000);
  const rows = await waitUntil(
    async () => {
      const all = await app.orm.em
        .fork()
        .execute<{ status: string; attempts: number; delivery_id: string }[]>(
          'select status, attempts, delivery_id from webhook_deliveries where webhook_id in (?)',
          [hooks],
        );
      return all.length === EVENTS * 2 && all.every((d) => d.status === 'SUCCEEDED') && all;
    },
    10_000,
    'every delivery to succeed',
  );
  await new Promise((res) => setTimeout(res, 500)); // anything duplicated would have arrived by now
  t.is(r.requests.length, expected);
  const perId = new Map<string, number>();
  for (const q of r.requests)
    perId.set(String(q.headers['webhook-id']), (perId.get(String(q.headers['webhook-id'])) ?? 0) + 1);
  t.is(perId.size, EVENTS * 2, 'one webhook-id per (event, webhook)');
  t.deepEqual(
    [...perId].filter(([, n]) => n !== 1).map(([id, n]) => [failedOnce.has(id), n]),
    Array((EVENTS / 5) * 2).fill([true, 2]),
  );
  t.is(rows.filter((d) => d.attempts === 2).length, (EVENTS / 5) * 2);
  t.is(rows.filter((d) => d.attempts === 1).length, EVENTS * 2 - (EVENTS / 5) * 2);
});

test.serial('latency: from the commit of recordEvent to the receiver, event after event', async (t) => {
  const m = await createMerchant(app);
  const r = await startReceiver();
  t.teardown(() => r.close());
  await m.http.post(PATH, { url: r.url() });
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    await app.orm.em.fork().transactional((tx) => recordEvent(tx, app.boss, m.merchantId, 'pixkey.updated', { i }));
    const committed = performance.now();
    const [req] = (await r.waitFor(i + 1, 5000)).slice(-1);
    samples.push(req.at - committed);
  }
  samples.sort((a, b) => a - b);
  const p = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))].toFixed(1);
  t.log(`commit -> receiver over ${samples.length} events: p50 ${p(0.5)} ms, p90 ${p(0.9)} ms, max ${p(1)} ms`);
  // Far below pg-boss' 2 s poll: only LISTEN/NOTIFY wake-ups explain it.
  t.true(samples[Math.floor(samples.length / 2)] < 250, `p50 ${p(0.5)} ms`);
});
