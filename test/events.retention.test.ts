import test from 'ava';
import { v7 as uuidv7 } from 'uuid';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil } from './support/receiver.ts';
import { pruneEvents, PRUNE_BATCH, uuidV7Floor } from '../src/events/retention.ts';
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { recordPixKeyEvent, sql } from './events.helpers.ts';

// Retention: events and delivery logs past EVENT_RETENTION_DAYS go, in batches; what is younger, or still being
// delivered, stays. pg-boss keeps its own finished jobs bounded.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const DAY = 24 * 3600 * 1000;
const logger = createLogger('silent', 'test');

// Old events (and a delivery for each of the first `withDeliveries`), written as they would have been `daysAgo`.
async function seedOld(merchantId: string, webhookId: string, n: number, daysAgo: number, status = 'SUCCEEDED') {
  const at = Date.now() - daysAgo * DAY;
  const rows = Array.from({ length: n }, (_, i) => ({
    id: uuidv7({ msecs: at + i }),
    at: new Date(at + i).toISOString(),
    delivery: uuidv7({ msecs: at + i }),
  }));
  await sql(
    app,
    `insert into events (id, created_at, updated_at, merchant_id, type, data)
     select r.id, r.at, r.at, ?, 'pixkey.updated', '{}'::jsonb
       from jsonb_to_recordset(?::jsonb) as r(id uuid, at timestamptz)`,
    [merchantId, JSON.stringify(rows)],
  );
  await sql(
    app,
    `insert into webhook_deliveries (id, created_at, updated_at, delivery_id, event_id, webhook_id, event_type, url,
                                     payload, status, attempts, success)
     select r.delivery, r.at, r.at, 'msg_' || replace(r.delivery::text, '-', ''), r.id, ?, 'pixkey.updated',
            'http://127.0.0.1:1/', '{}', ?, 1, ? = 'SUCCEEDED'
       from jsonb_to_recordset(?::jsonb) as r(id uuid, delivery uuid, at timestamptz)`,
    [webhookId, status, status, JSON.stringify(rows)],
  );
  return rows.map((r) => r.id);
}

test('the cutoff UUID sorts below every UUID v7 of an earlier millisecond and above none of a later one', (t) => {
  const at = new Date('2026-10-01T12:00:00.000Z');
  const floor = uuidV7Floor(at);
  t.true(uuidv7({ msecs: at.getTime() - 1 }) < floor);
  t.true(uuidv7({ msecs: at.getTime() }) > floor);
  t.true(uuidv7({ msecs: at.getTime() + 1 }) > floor);
});

test('events and delivery logs past the window go in batches; younger ones and deliveries in progress stay', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const m = await createMerchant(app);
  const hook = (await m.http.post('/v1/webhooks/merchant', { url: receiver.url(), events: [] })).body.webhook;
  const old = await seedOld(m.merchantId, hook.id, PRUNE_BATCH * 2 + 17, 31); // more than two batches
  const retrying = await seedOld(m.merchantId, hook.id, 3, 40, 'PENDING'); // attempts remain: kept with its event
  const young = await seedOld(m.merchantId, hook.id, 5, 29);
  const fresh = await recordPixKeyEvent(app, m.merchantId);
  const total = old.length + retrying.length + young.length + 1;
  await waitUntil(async () => (await m.http.get('/v1/events?limit=1')).body.total === total, 5000, 'all counted');
  await waitUntil(
    async () => (await sql(app, 'select 1 from event_stream_pending limit 1')).length === 0,
    5000,
    'positioned',
  );

  const pruned = await pruneEvents(app.orm.em.fork(), 30, logger);
  t.deepEqual(pruned, { deliveries: old.length, events: old.length });
  const left = await sql<{ id: string }>(app, 'select id from events where merchant_id = ? order by id', [
    m.merchantId,
  ]);
  t.deepEqual(
    left.map((e) => e.id),
    [...retrying, ...young, fresh.id].sort(),
  );
  const deliveries = await sql<{ n: number }>(
    app,
    'select count(*)::int as n from webhook_deliveries where webhook_id = ?',
    [hook.id],
  );
  t.is(deliveries[0].n, retrying.length + young.length + 1);
  t.is((await m.http.get('/v1/events?limit=1')).body.total, left.length, 'the listing total follows');
  const positions = await sql<{ n: number }>(app, 'select count(*)::int as n from event_stream where merchant_id = ?', [
    m.merchantId,
  ]);
  t.is(positions[0].n, left.length, 'their stream positions went with them');
  t.deepEqual(await pruneEvents(app.orm.em.fork(), 30, logger), { deliveries: 0, events: 0 }, 'idempotent');
});

test('EVENT_RETENTION_DAYS: 30 by default, 0 keeps everything, anything else is refused', (t) => {
  t.is(loadConfig({ NODE_ENV: 'test' }).eventRetentionDays, 30);
  t.is(loadConfig({ NODE_ENV: 'test', EVENT_RETENTION_DAYS: '0' }).eventRetentionDays, 0);
  t.is(loadConfig({ NODE_ENV: 'test', EVENT_RETENTION_DAYS: '90' }).eventRetentionDays, 90);
  t.throws(() => loadConfig({ NODE_ENV: 'test', EVENT_RETENTION_DAYS: 'trinta' }), { message: /EVENT_RETENTION_DAYS/ });
});

test('the worker schedules the pruning, and pg-boss deletes its own finished jobs past their retention', async (t) => {
  const stop = await startBackground(app, 'worker');
  t.teardown(stop);
  const schedules = await sql<{ cron: string }>(app, 'select cron from pgboss.schedule where name = ?', [
    QUEUES.eventsPrune,
  ]);
  t.deepEqual(
    schedules.map((s) => s.cron),
    ['*/10 * * * *'],
  );
  // a job completed 8 days ago (deleteAfterSeconds is 7 days) and one completed now
  const [queue] = await sql<{ table_name: string }>(app, 'select table_name from pgboss.queue where name = ?', [
    QUEUES.countersFold,
  ]);
  const insert = (completedAgo: string) =>
    sql<{ id: string }>(
      app,
      `insert into pgboss.${queue.table_name} (name, data, state, created_on, started_on, completed_on, deletion_seconds)
       values (?, '{}', 'completed', now() - ?::interval, now() - ?::interval, now() - ?::interval, 7 * 24 * 3600)
       returning id`,
      [QUEUES.countersFold, completedAgo, completedAgo, completedAgo],
    );
  const [expired] = await insert('8 days');
  const [recent] = await insert('1 minute');
  // the queue's last maintenance was just now (the worker started): make the next pass due
  await sql(app, `update pgboss.queue set maintain_on = now() - interval '1 hour' where name = ?`, [
    QUEUES.countersFold,
  ]);
  const exists = async (id: string) =>
    (await sql(app, `select 1 from pgboss.${queue.table_name} where id = ?`, [id])).length === 1;
  await waitUntil(async () => !(await exists(expired.id)), 20_000, 'the expired job deleted');
  t.true(await exists(recent.id));
});
