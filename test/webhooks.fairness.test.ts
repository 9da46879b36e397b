import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';

// Fair delivery (issue 31): a merchant whose endpoint accepts connections and never answers must not hold back
// another merchant's deliveries. Two daemons of 8 slots, 2 of each reserved for merchants with fewer than 10
// deliveries in flight across both; the POST timeout is far longer than the test, so no hanging attempt can end
// while it runs: anything another merchant receives went out beside them, not after them.
let app: TestApp;
const stops: (() => Promise<void>)[] = [];
const SLOTS = 8;
const RESERVED = 2; // a quarter
const LIMIT = 10; // above one daemon's open slots, below both daemons': only a count across daemons refuses the reserve
test.before(async () => {
  app = await startTestApp();
  const env = {
    WEBHOOK_CONCURRENCY: String(SLOTS),
    WEBHOOK_MERCHANT_CONCURRENCY: String(LIMIT),
    WEBHOOK_TIMEOUT_MS: '600000',
  };
  for (let i = 0; i < 2; i++) stops.push(await startBackground(app, 'webhooks', env));
});
test.after.always(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';

async function events(merchantId: string, n: number) {
  await app.orm.em.fork().transactional(async (tx) => {
    for (let i = 0; i < n; i++) await recordEvent(tx, app.boss, merchantId, 'charge.paid', { seq: i });
  });
}

const attempted = async (webhookId: string) =>
  (
    await app.orm.em
      .fork()
      .execute<{ n: number }[]>(
        'select coalesce(sum(attempts), 0)::int as n from webhook_deliveries where webhook_id = ?',
        [webhookId],
      )
  )[0].n;

test.serial("a hanging endpoint's flood holds no reserved slot; another merchant is delivered beside it", async (t) => {
  const hanging: Receiver = await startReceiver(() => ({ hang: true }));
  t.teardown(() => hanging.close());
  const noisy = await createMerchant(app);
  const slow = (await noisy.http.post(PATH, { url: hanging.url() })).body.webhook.id as string;
  await events(noisy.merchantId, 60); // far more than the 16 slots of both daemons

  // The noisy merchant takes the open slots of both daemons (nobody else waits), and none of the reserved ones...
  const open = 2 * (SLOTS - RESERVED);
  await hanging.waitFor(open, 30_000);

  // ...and another merchant, whose events come after all of those, is delivered while every one of them still hangs.
  const ok = await startReceiver();
  t.teardown(() => ok.close());
  const other = await createMerchant(app);
  await other.http.post(PATH, { url: ok.url() });
  await events(other.merchantId, 5);
  await ok.waitFor(5, 30_000);
  await waitUntil(
    async () =>
      (
        await app.orm.em.fork().execute<{ n: number }[]>(
          `select count(*)::int as n from webhook_deliveries d join webhooks w on w.id = d.webhook_id
              where w.merchant_id = ? and d.status = 'SUCCEEDED'`,
          [other.merchantId],
        )
      )[0].n === 5,
    10_000,
    "the other merchant's deliveries recorded",
  );

  t.is(await attempted(slow), 0, 'no hanging attempt has ended: the other merchant did not wait for them');
  t.is(hanging.requests.length, open, 'over its limit across both daemons, the noisy merchant got no reserved slot');
});
