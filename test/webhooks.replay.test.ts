import test from 'ava';
import { main } from '../src/ops.ts';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';
import { MAX_ATTEMPTS } from '../src/webhooks/retry.ts';

// The whole retry schedule compressed 100 000x (about one second), so deliveries fail for good quickly.
let app: TestApp;
let stopDaemon: () => Promise<void>;
test.before(async () => {
  app = await startTestApp();
  stopDaemon = await startBackground(app, 'webhooks', { WEBHOOK_RETRY_SCALE: '0.00001' });
});
test.after.always(async () => {
  await stopDaemon?.();
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';

async function ops(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env: { DATABASE_URL: app.databaseUrl, NODE_ENV: 'test' },
  });
  return { code, err: err.join('\n'), json: code === 0 ? JSON.parse(out.join('\n')) : undefined };
}

type Row = { id: string; delivery_id: string; status: string; attempts: number; success: boolean; created_at: string };
// PostgreSQL's text timestamp ('2026-01-01 10:00:00.123456+00') as ISO 8601, microseconds kept.
const iso = (pgTimestamp: string) => `${pgTimestamp.replace(' ', 'T')}:00`;
const rowsOf = (webhookId: string) =>
  app.orm.em
    .fork()
    .execute<Row[]>('select * from webhook_deliveries where webhook_id = ? order by created_at, id', [webhookId]);

// A webhook whose receiver is down (500) until `r.reply` says otherwise, and `count` of its deliveries failed for good.
async function failedDeliveries(
  count: number,
): Promise<{ m: Awaited<ReturnType<typeof createMerchant>>; r: Receiver; webhookId: string; rows: Row[] }> {
  const m = await createMerchant(app);
  const r = await startReceiver(() => ({ status: 500, body: 'fora do ar' }));
  const webhookId = (await m.http.post(PATH, { url: r.url() })).body.webhook.id;
  for (let i = 0; i < count; i++) {
    await app.orm.em.fork().transactional((tx) => recordEvent(tx, app.boss, m.merchantId, 'withdraw.completed', { i }));
    // One fan-out per event, so each delivery has its own created_at for the time-range filters.
    await waitUntil(async () => (await rowsOf(webhookId)).length === i + 1);
  }
  const rows = await waitUntil(
    async () => {
      const all = await rowsOf(webhookId);
      return all.length === count && all.every((d) => d.status === 'FAILED') && all;
    },
    15_000,
    'deliveries to fail for good',
  );
  return { m, r, webhookId, rows };
}

test('after the whole schedule a delivery is FAILED; replay re-sends it under the same webhook-id and it succeeds', async (t) => {
  const {
    r,
    webhookId,
    rows: [failed],
  } = await failedDeliveries(1);
  t.teardown(() => r.close());
  t.is(failed.attempts, MAX_ATTEMPTS);
  t.is(r.requests.length, MAX_ATTEMPTS, 'eight attempts, then no more');
  t.true(r.requests.every((q) => q.headers['webhook-id'] === failed.delivery_id));

  r.reply(() => ({ status: 200, body: 'voltei' }));
  const dry = await ops('deliveries:replay', '--delivery', failed.delivery_id, '--dry-run');
  t.deepEqual(dry.json, {
    dryRun: true,
    wouldReplay: 1, // not "replayed": a dry run replays nothing
    deliveries: [failed.id],
    deliveryIds: [failed.delivery_id],
    skipped: [],
  });
  await new Promise((res) => setTimeout(res, 200));
  t.is((await rowsOf(webhookId))[0].status, 'FAILED', 'a dry run changes nothing');
  t.is(r.requests.length, MAX_ATTEMPTS);

  const replay = await ops('deliveries:replay', '--delivery', failed.id);
  t.like(replay.json, { replayed: 1, deliveries: [failed.id] });
  const [req] = (await r.waitFor(MAX_ATTEMPTS + 1)).slice(-1);
  t.is(req.headers['webhook-id'], failed.delivery_id);
  const done = await waitUntil(async () => (await rowsOf(webhookId)).find((d) => d.status === 'SUCCEEDED'), 5000);
  t.like(done, { attempts: MAX_ATTEMPTS + 1, success: true });

  const again = await ops('deliveries:replay', '--delivery', failed.id);
  t.deepEqual(again.json, {
    replayed: 0,
    deliveries: [],
    deliveryIds: [],
    skipped: [{ id: failed.id, reason: 'status is SUCCEEDED, only FAILED deliveries are replayed' }],
  });
});

test('replay by webhook and time range; deleted webhooks are skipped and reported', async (t) => {
  const { r, webhookId, rows } = await failedDeliveries(3);
  t.teardown(() => r.close());
  const future = new Date(Date.now() + 3600_000).toISOString();
  t.like((await ops('deliveries:replay', '--webhook', webhookId, '--since', future)).json, { replayed: 0 });
  const until = (
    await ops('deliveries:replay', '--webhook', webhookId, '--until', iso(rows[1].created_at), '--dry-run')
  ).json;
  t.deepEqual(until.deliveries, [rows[0].id], '--until excludes deliveries created at or after it');

  const other = await failedDeliveries(1);
  t.teardown(() => other.r.close());
  await other.m.http.del(`${PATH}/${other.webhookId}`);
  const sinceStart = (await ops('deliveries:replay', '--since', iso(rows[0].created_at), '--dry-run')).json;
  t.deepEqual(
    sinceStart.deliveries.filter((id: string) => rows.some((d) => d.id === id)),
    rows.map((d) => d.id),
  );
  t.deepEqual(
    sinceStart.skipped.filter((s: { id: string }) => s.id === other.rows[0].id),
    [{ id: other.rows[0].id, reason: 'webhook deleted' }],
  );

  r.reply(() => ({ status: 204 }));
  const replay = (await ops('deliveries:replay', '--webhook', webhookId)).json;
  t.is(replay.replayed, 3);
  await waitUntil(
    async () => (await rowsOf(webhookId)).every((d) => d.status === 'SUCCEEDED'),
    5000,
    'the replays to succeed',
  );
  t.is((await rowsOf(other.webhookId))[0].status, 'FAILED');
});

test('replay refuses to run without a filter (unless --all) and rejects malformed flags', async (t) => {
  const none = await ops('deliveries:replay');
  t.is(none.code, 2, 'a usage error');
  t.regex(none.err, /at least one of --delivery, --webhook, --since, --until \(or --all/);
  t.regex((await ops('deliveries:replay', '--since', 'yesterday')).err, /--since must be an ISO 8601/);
  t.regex((await ops('deliveries:replay', '--webhook', 'abc')).err, /--webhook must be a webhook id/);
  const unknown = await ops('deliveries:replay', '--delivery', 'msg_nope');
  t.regex(unknown.err, /no delivery msg_nope/);
  t.is(unknown.code, 1, 'not found');
  const all = await ops('deliveries:replay', '--all', '--dry-run');
  t.is(all.code, 0);
  t.true(all.json.dryRun);
  t.false('replayed' in all.json);
});
