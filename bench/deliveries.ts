// Scenario (c): delivery throughput. 50,000 events for a subscribed webhook are queued (their deliveries and deliver
// jobs, as recordEvent writes them with each business change), then one daemon (and then two) drain them. Baseline: raw
// undici POSTs to the same receiver.
import { statement } from '../src/platform/sql.ts';
import { Pool } from 'undici';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { freePort, startDatabase, startProc, ask, type Database, type Proc } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';
import { machine, report, round, type Row } from './lib/report.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { createPgPool } from '../src/platform/pg.ts';
import { createDeliveries } from '../src/webhooks/outbox.ts';
import type { EventRow } from '../src/webhooks/webhooks.sql.ts';
import { createLogger } from '../src/platform/logger.ts';

const EVENTS_BY_ID = statement(
  'bench.events_by_id',
  'select id, merchant_id, type, data, created_at from events where id = any($1::uuid[])',
);
const ANALYZE_JOBS = statement('bench.analyze_jobs', 'analyze pgboss.job_common');

const EVENTS = Number(process.env.BENCH_EVENTS || 50_000);

async function baselineRate(url: string, seconds = 5): Promise<number> {
  const u = new URL(url);
  const pool = new Pool(u.origin, { connections: 32 });
  const body = JSON.stringify({
    id: 'x',
    event: 'charge.paid',
    createdAt: new Date().toISOString(),
    data: { id: 'x', amount: 1000 },
  });
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (performance.now() < until) {
        const r = await pool.request({
          path: u.pathname,
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
        await r.body.text();
        done++;
      }
    }),
  );
  await pool.close();
  return done / seconds;
}

async function queueEvents(db: Database, merchantId: string) {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query('truncate webhook_deliveries, events cascade');
  await c.query(`delete from pgboss.job where name = $1`, [QUEUES.webhookDeliver]);
  const { rows } = await c.query<{ id: string }>(
    `insert into events (id, created_at, updated_at, merchant_id, type, data)
     select gen_random_uuid(), now(), now(), $1, 'charge.paid', jsonb_build_object('id', gen_random_uuid(), 'amount', 1000, 'status', 'PAID')
     from generate_series(1, $2) returning id`,
    [merchantId, EVENTS],
  );
  await c.end();
  const boss = new PgBoss({
    connectionString: db.url,
    schema: 'pgboss',
    supervise: false,
    schedule: false,
    migrate: false,
  });
  await boss.start();
  const daemonDb = createPgPool(db.url, 1, createLogger('warn', 'bench'), 'bench');
  for (let i = 0; i < rows.length; i += 5000) {
    await daemonDb.tx(async (sql) => {
      const events = await sql.query<EventRow>(EVENTS_BY_ID, [rows.slice(i, i + 5000).map((r) => r.id)]);
      await createDeliveries(sql, boss, events);
    });
  }
  // A real backlog builds up over minutes, with autovacuum keeping the job table's statistics current; the bulk load
  // above takes a second, so analyze as autovacuum would have (stale statistics make each fetch ~10x slower).
  await daemonDb.run(ANALYZE_JOBS);
  await daemonDb.close();
  await boss.stop({ graceful: false });
}

async function drain(db: Database, daemons: number, receiver: Proc) {
  await ask(receiver, 'reset');
  const procs: Proc[] = [];
  const started = performance.now();
  for (let i = 0; i < daemons; i++)
    procs.push(await startProc(`webhooks-${i}`, 'apps/webhooks/main.ts', { DATABASE_URL: db.url }));
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  let succeeded = 0;
  const deadline = Date.now() + 300_000;
  while (succeeded < EVENTS && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    succeeded = Number(
      (await c.query(`select count(*) as n from webhook_deliveries where status = 'SUCCEEDED'`)).rows[0].n,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  const logged = Number(
    (await c.query(`select count(*) as n from webhook_deliveries where success and attempts >= 1`)).rows[0].n,
  );
  await c.end();
  const rss = Math.max(...procs.map((p) => p.rssMb()));
  const own = Math.max(...procs.map((p) => p.privateMb()));
  for (const p of procs) await p.stop();
  const received = (await ask<{ count: number }>(receiver, 'report')).count;
  return { rate: round(succeeded / seconds, 0), seconds: round(seconds, 1), succeeded, logged, received, rss, own };
}

export async function benchDeliveries(db?: Database): Promise<Row[]> {
  const own = !db;
  db ??= await startDatabase();
  const rows: Row[] = [];
  const procs: Proc[] = [];
  try {
    const receiverPort = await freePort();
    const receiver = await startProc('receiver', 'bench/receiver-server.ts', { PORT: String(receiverPort) });
    procs.push(receiver);
    const hookUrl = `http://127.0.0.1:${receiverPort}/hook`;
    const base = round(await baselineRate(hookUrl), 0);
    rows.push({ scenario: 'c', metric: 'baseline raw undici POST/s (32 connections)', value: base });

    const port = await freePort();
    const api = await startProc('api', 'apps/api/main.ts', { DATABASE_URL: db.url, PORT: String(port) });
    const m = await onboardMerchant(`http://127.0.0.1:${port}`, db.url);
    await m.call('POST', '/v1/webhooks/merchant', { url: hookUrl });
    await api.stop();

    const results: Record<number, Awaited<ReturnType<typeof drain>>> = {};
    for (const daemons of [1, 2]) {
      await queueEvents(db, m.merchantId);
      const r = (results[daemons] = await drain(db, daemons, receiver));
      const tag = `${daemons} daemon${daemons > 1 ? 's' : ''}`;
      rows.push(
        {
          scenario: 'c',
          metric: `deliveries/s (${tag}, ${EVENTS} events)`,
          value: r.rate,
          target: daemons === 1 ? '>= 2000' : '~1.8x of 1 daemon',
          pass: daemons === 1 ? r.rate >= 2000 : r.rate >= 1.8 * results[1].rate,
        },
        { scenario: 'c', metric: `drain seconds (${tag})`, value: r.seconds },
        {
          scenario: 'c',
          metric: `deliveries logged as success (${tag})`,
          value: r.logged,
          target: String(EVENTS),
          pass: r.logged === EVENTS,
        },
        {
          scenario: 'c',
          metric: `requests at the receiver (${tag}; > events = duplicates)`,
          value: r.received,
          target: String(EVENTS),
          pass: r.received === EVENTS,
        },
        {
          scenario: 'e',
          metric: `daemon RSS MB after (c) (${tag}, largest)`,
          value: r.rss,
          target: '< 120',
          pass: r.rss < 120,
        },
        { scenario: 'e', metric: `daemon private MB (RssAnon) after (c) (${tag}, largest)`, value: r.own },
      );
    }
    rows.push({ scenario: 'c', metric: 'ratio 1 daemon / raw undici', value: round(results[1].rate / base, 3) });
  } finally {
    for (const p of procs) await p.stop();
    if (own) await db.stop();
  }
  report('c', rows, { machine: machine(db.version), events: EVENTS });
  return rows;
}

if (import.meta.main) await benchDeliveries();
