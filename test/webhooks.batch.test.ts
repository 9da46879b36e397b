import test from 'ava';
import pg from 'pg';
import { statement } from '../src/platform/sql.ts';
import type { Job } from 'pg-boss';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { createPgPool, type PgPool } from '../src/platform/pg.ts';
import { createDeliveries, recordEvent } from '../src/webhooks/outbox.ts';
import type { EventRow } from '../src/webhooks/webhooks.sql.ts';
import type { DeliverJob } from '../src/platform/queue.ts';
import { deliverBatch, type DeliverContext } from '../src/webhooks/deliver.ts';
import { createSender } from '../src/webhooks/sender.ts';
import { signingKeyCache, type SigningKeys } from '../src/webhooks/signing-keys.ts';
import { MAX_ATTEMPTS } from '../src/webhooks/retry.ts';
import { breakerSettings } from '../src/webhooks/breaker.ts';

// deliverBatch driven by hand (no daemon runs in this file): one batch mixing every outcome, checked row by row.
let app: TestApp;
let db: PgPool;
let raw: pg.Pool; // the assertions' own SQL
const sender = createSender({ production: false, timeoutMs: 2000 });
const breaker = breakerSettings(10, 2000, 1);
let signingKeys: SigningKeys;
test.before(async () => {
  app = await startTestApp();
  db = createPgPool(app.databaseUrl, 2, app.deps.logger, 'webhooks');
  raw = new pg.Pool({ connectionString: app.databaseUrl, max: 2 });
  signingKeys = signingKeyCache(app.config.secrets);
});
test.after.always(async () => {
  sender.close();
  await db?.close();
  await raw?.end();
  await app?.close();
});

// A merchant's endpoint: `/down` answers 500, anything else 200.
async function receiver(t: { teardown: (fn: () => Promise<void>) => void }): Promise<Receiver> {
  const r = await startReceiver((req) =>
    req.path === '/down' ? { status: 500, body: 'fora do ar' } : { status: 200, body: 'ok' },
  );
  t.teardown(() => r.close());
  return r;
}

const PATH = '/v1/webhooks/merchant';
type Row = {
  id: string;
  webhook_id: string;
  status: string;
  attempts: number;
  status_code: number | null;
  response: string | null;
  success: boolean;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
};

const EVENTS_BY_ID = statement(
  'test.events_by_id',
  'select id, merchant_id, type, data, created_at from events where id = any($1::uuid[])',
);

// The deliveries of events already stored (a backfill), created in one transaction of the pool.
const fanOut = (pool: PgPool, boss: TestApp['boss'], eventIds: string[]) =>
  pool.tx(async (sql) => createDeliveries(sql, boss, await sql.query<EventRow>(EVENTS_BY_ID, [eventIds])));

const job = (data: DeliverJob, id = crypto.randomUUID()): Job<DeliverJob> => ({
  id,
  name: QUEUES.webhookDeliver,
  data,
  expireInSeconds: 900,
  heartbeatSeconds: null,
  retryCount: 0,
  signal: new AbortController().signal,
});

test('one batch: success, retry (its job written with the row), final failure, paused webhook, duplicate and stale jobs', async (t) => {
  const r = await receiver(t);
  const m = await createMerchant(app);
  const hook = async (path: string) => (await m.http.post(PATH, { url: r.url(path) })).body.webhook.id as string;
  const [ok, down, last, paused] = [await hook('/ok'), await hook('/down'), await hook('/last'), await hook('/paused')];
  const event = await app.orm.em
    .fork()
    .transactional((tx) => recordEvent(tx, app.boss, m.merchantId, 'charge.paid', { n: 1 }));
  t.is(
    (await raw.query('select 1 from webhook_deliveries where event_id = $1', [event.id])).rows.length,
    4,
    'recordEvent wrote one delivery per webhook',
  );
  t.is(await fanOut(db, app.boss, [event.id]), 0, 'a second fan-out of the same event creates nothing');
  await m.http.patch(`${PATH}/${paused}`, { status: 'INACTIVE' });
  const rows = async () =>
    new Map(
      (
        await raw.query<Row>('select * from webhook_deliveries where event_id = $1 order by webhook_id', [event.id])
      ).rows.map((d) => [d.webhook_id, d]),
    );
  const before = await rows();
  // `/last` is on its final step: a failure there ends the schedule (it answers 200, so make it fail through the path).
  await raw.query(`update webhooks set url = $1 where id = $2`, [r.url('/down'), last]);
  await raw.query(`update webhook_deliveries set attempts = $1 where id = $2`, [
    MAX_ATTEMPTS - 1,
    before.get(last)!.id,
  ]);

  const wakes: number[] = [];
  const ctx: DeliverContext = {
    db,
    boss: app.boss,
    sender,
    signingKeys,
    retryScale: 1,
    disable: { minFailures: 10, afterSeconds: 432_000 },
    breaker,
    logger: app.deps.logger,
    wakeAfter: (s) => wakes.push(s),
  };
  const jobs = [
    job({ id: before.get(ok)!.id, attempt: 0, step: 0 }),
    job({ id: before.get(ok)!.id, attempt: 0, step: 0 }), // the same attempt twice in one batch
    job({ id: before.get(down)!.id, attempt: 0, step: 0 }),
    job({ id: before.get(down)!.id, attempt: 3, step: 3 }), // stale: the row is not at attempt 3
    job({ id: before.get(last)!.id, attempt: MAX_ATTEMPTS - 1, step: MAX_ATTEMPTS - 1 }),
    job({ id: before.get(paused)!.id, attempt: 0, step: 0 }),
    job({ id: crypto.randomUUID(), attempt: 0, step: 0 }), // no such delivery
  ];
  const startedAt = Date.now();
  await deliverBatch(ctx, jobs);

  t.deepEqual(
    r.requests.map((q) => q.path).sort(),
    ['/down', '/down', '/ok'],
    'one POST per due delivery, none for the paused webhook',
  );
  const after = await rows();
  t.like(after.get(ok), {
    status: 'SUCCEEDED',
    attempts: 1,
    status_code: 200,
    response: 'ok',
    success: true,
    next_attempt_at: null,
  });
  t.true(after.get(ok)!.last_attempt_at!.getTime() >= startedAt - 1000);
  t.like(after.get(down), { status: 'PENDING', attempts: 1, status_code: 500, response: 'fora do ar', success: false });
  const wait = after.get(down)!.next_attempt_at!.getTime() - after.get(down)!.last_attempt_at!.getTime();
  t.true(wait > 4000 && wait < 6500, `next attempt ${wait} ms after this one`);
  t.like(after.get(last), { status: 'FAILED', attempts: MAX_ATTEMPTS, status_code: 500, next_attempt_at: null });
  t.like(after.get(paused), { status: 'CANCELED', attempts: 0, next_attempt_at: null });
  t.deepEqual(wakes, [5]);

  const queued = await raw.query<{ data: DeliverJob; delay: number }>(
    `select data, extract(epoch from start_after - now())::float8 as delay from pgboss.job
     where name = $1 and state = 'created' and (data->>'attempt')::int > 0 and data->>'id' = any($2)`,
    [QUEUES.webhookDeliver, [...before.values()].map((d) => d.id)],
  );
  t.deepEqual(
    queued.rows.map((q) => q.data),
    [{ id: before.get(down)!.id, attempt: 1, step: 1 }],
    'one retry job, for the retried delivery only',
  );
  t.true(queued.rows[0].delay > 3 && queued.rows[0].delay <= 5);

  // The same batch again (pg-boss retrying it after a crash): every job is stale now, nothing is sent or counted.
  await deliverBatch(ctx, jobs);
  t.is(r.requests.length, 3);
  t.deepEqual(await rows(), after);
});

test('a database error fails the whole batch before anything is sent', async (t) => {
  const r = await receiver(t);
  const broken = createPgPool(app.databaseUrl.replace(/\/[^/]+$/, '/no_such_database'), 1, app.deps.logger, 'webhooks');
  t.teardown(() => broken.close());
  const ctx: DeliverContext = {
    db: broken,
    boss: app.boss,
    sender,
    signingKeys,
    retryScale: 1,
    disable: { minFailures: 10, afterSeconds: 432_000 },
    breaker,
    logger: app.deps.logger,
    wakeAfter: () => {},
  };
  await t.throwsAsync(deliverBatch(ctx, [job({ id: crypto.randomUUID(), attempt: 0, step: 0 })]));
  t.is(r.requests.length, 0);
});

test('a row that moved on while its POST was in flight (another worker, a replay) is neither counted again nor rescheduled', async (t) => {
  const r = await receiver(t);
  const m = await createMerchant(app);
  const down = (await m.http.post(PATH, { url: r.url('/down') })).body.webhook.id as string;
  await app.orm.em.fork().transactional((tx) => recordEvent(tx, app.boss, m.merchantId, 'charge.paid', { n: 2 }));
  const {
    rows: [row],
  } = await raw.query<{ id: string }>('select id from webhook_deliveries where webhook_id = $1', [down]);
  // The POST is made while another worker records its own (failed) attempt of the same delivery.
  const racing = {
    ...sender,
    post: async (...args: Parameters<typeof sender.post>) => {
      await raw.query(
        `update webhook_deliveries set attempts = attempts + 1, response = 'outro worker' where id = $1`,
        [row.id],
      );
      return sender.post(...args);
    },
  };
  const wakes: number[] = [];
  await deliverBatch(
    {
      db,
      boss: app.boss,
      sender: racing,
      signingKeys,
      retryScale: 1,
      disable: { minFailures: 10, afterSeconds: 432_000 },
      breaker,
      logger: app.deps.logger,
      wakeAfter: (s) => wakes.push(s),
    },
    [job({ id: row.id, attempt: 0, step: 0 })],
  );
  const {
    rows: [after],
  } = await raw.query<Row>('select * from webhook_deliveries where id = $1', [row.id]);
  t.is(r.requests.length, 1);
  t.like(after, { status: 'PENDING', attempts: 1, status_code: null, response: 'outro worker' });
  const retries = await raw.query(
    `select 1 from pgboss.job where name = $1 and data->>'id' = $2 and (data->>'attempt')::int > 0`,
    [QUEUES.webhookDeliver, row.id],
  );
  t.is(retries.rows.length, 0, 'no retry job for an attempt that was not recorded');
});

test("a retry job that cannot be written takes the attempt's log update with it (one transaction)", async (t) => {
  const r = await receiver(t);
  const m = await createMerchant(app);
  const down = (await m.http.post(PATH, { url: r.url('/down') })).body.webhook.id as string;
  await app.orm.em.fork().transactional((tx) => recordEvent(tx, app.boss, m.merchantId, 'charge.paid', { n: 3 }));
  const {
    rows: [row],
  } = await raw.query<{ id: string }>('select id from webhook_deliveries where webhook_id = $1', [down]);
  const failingQueue = Object.assign(Object.create(app.boss), {
    insert: async () => {
      throw new Error('fila indisponível');
    },
  });
  const ctx: DeliverContext = {
    db,
    boss: failingQueue,
    sender,
    signingKeys,
    retryScale: 1,
    disable: { minFailures: 10, afterSeconds: 432_000 },
    breaker,
    logger: app.deps.logger,
    wakeAfter: () => {},
  };
  await t.throwsAsync(deliverBatch(ctx, [job({ id: row.id, attempt: 0, step: 0 })]), { message: 'fila indisponível' });
  t.is(r.requests.length, 1);
  const {
    rows: [after],
  } = await raw.query<Row>('select * from webhook_deliveries where id = $1', [row.id]);
  t.like(
    after,
    { status: 'PENDING', attempts: 0, status_code: null, last_attempt_at: null },
    'the batch is retried from the same attempt',
  );
});

test('a fan-out of more deliveries than one insert chunk creates each delivery and its job once', async (t) => {
  const m = await createMerchant(app);
  const hooks = await Promise.all(
    Array.from({ length: 20 }, (_, i) => m.http.post(PATH, { url: `http://127.0.0.1:9/hook/${i}` })),
  );
  t.true(hooks.every((h) => h.status === 201));
  // events stored in bulk (as a backfill would), then fanned out in one call
  const events = (
    await raw.query<{ id: string }>(
      `insert into events (id, created_at, updated_at, merchant_id, type, data)
    select gen_random_uuid(), now(), now(), $1, 'pixkey.updated', jsonb_build_object('i', i) from generate_series(1, 60) i returning id`,
      [m.merchantId],
    )
  ).rows.map((e) => e.id);
  t.is(await fanOut(db, app.boss, events), 1200);
  t.is(await fanOut(db, app.boss, events), 0);
  const {
    rows: [counts],
  } = await raw.query<{ deliveries: number; jobs: number }>(
    `select (select count(*)::int from webhook_deliveries where event_id = any($1)) as deliveries,
       (select count(*)::int from pgboss.job j join webhook_deliveries d on d.id = (j.data->>'id')::uuid where j.name = $2 and d.event_id = any($1)) as jobs`,
    [events, QUEUES.webhookDeliver],
  );
  t.deepEqual(counts, { deliveries: 1200, jobs: 1200 });
});
