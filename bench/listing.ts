// Scenario (d): GET /v1/merchants/me/withdrawals, GET /v1/charges, GET /v1/events and GET /v1/merchants/me/statement
// for a merchant with 1,000,000 of each (seeded in bulk), page 1 and page 1,000 (events also by type and by resource,
// the statement also over a month and as CSV), p50/p99 over sequential requests.
import { freePort, startDatabase, startProc, type Database, type Proc } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';
import { machine, percentile, report, round, type Row } from './lib/report.ts';
import { createOrm } from '../src/database.ts';
import { seedWithdrawals } from './lib/seed-withdrawals.ts';
import { seedCharges } from './lib/seed-charges.ts';
import { seedEvents } from './lib/seed-events.ts';
import { seedStatement } from './lib/seed-statement.ts';

const ROWS = Number(process.env.BENCH_ROWS || 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES || 300);

async function latencies(url: string, apiKey: string, minTotal: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    const csv = res.headers.get('content-type')?.startsWith('text/csv');
    // a CSV's total is its x-total-count header; its body is read whole all the same
    const total = csv
      ? (await res.text(), Number(res.headers.get('x-total-count')))
      : ((await res.json()) as { total: number }).total;
    if (res.status !== 200 || total < minTotal) throw new Error(`${url}: ${res.status} total ${total}`);
    if (i >= 20) out.push(performance.now() - t); // the first 20 warm caches and the JIT
  }
  return out;
}

export async function benchListing(db?: Database): Promise<Row[]> {
  const own = !db;
  db ??= await startDatabase();
  const rows: Row[] = [];
  const procs: Proc[] = [];
  try {
    const port = await freePort();
    procs.push(await startProc('api', 'apps/api/main.ts', { DATABASE_URL: db.url, PORT: String(port) }));
    const base = `http://127.0.0.1:${port}`;
    const m = await onboardMerchant(base, db.url);
    const auth = { authorization: `Bearer ${m.apiKey}` };
    const orm = await createOrm(db.url, { pool: { min: 0, max: 2 } });
    const seedStart = performance.now();
    await seedWithdrawals(orm.em.fork(), m.merchantId, ROWS);
    await seedCharges(orm.em.fork(), m.merchantId, ROWS);
    await seedEvents(orm.em.fork(), m.merchantId, ROWS);
    await seedStatement(orm.em.fork(), m.merchantId, ROWS);
    // what autovacuum would have done to tables that grew over time, so its work on the fresh bulk load does not run
    // on the same two cores during the measurement
    await orm.em
      .fork()
      .getConnection()
      .execute(
        'vacuum (analyze) withdrawals, charges, withdrawal_counts, charge_counts, events, event_counts, statement_entries',
      );
    await orm.em.fork().getConnection().execute('checkpoint');
    await orm.close();
    rows.push({
      scenario: 'd',
      metric: `seeding 4 x ${ROWS} rows + vacuum (s)`,
      value: round((performance.now() - seedStart) / 1000),
    });
    const first = (await (await fetch(`${base}/v1/events?limit=1`, { headers: auth })).json()) as {
      events: { data: { id: string } }[];
    };
    const resource = first.events[0].data.id;
    // a whole São Paulo day some days back (86,400 lines of the statement's one a second)
    const day = new Date(Date.now() - 3 * 86400_000 - 3 * 3600_000).toISOString().slice(0, 10);
    const targets: [string, string, number, number][] = [
      ['withdrawals page 1', '/v1/merchants/me/withdrawals?page=1&limit=20', 10, ROWS],
      ['withdrawals page 1000', '/v1/merchants/me/withdrawals?page=1000&limit=20', 50, ROWS],
      ['charges page 1', '/v1/charges?page=1&limit=20', 10, ROWS],
      ['charges page 1000', '/v1/charges?page=1000&limit=20', 50, ROWS],
      ['events page 1', '/v1/events?page=1&limit=20', 10, ROWS],
      ['events page 1000', '/v1/events?page=1000&limit=20', 50, ROWS],
      ['events of one type page 500', '/v1/events?type=withdraw.failed&page=500&limit=20', 50, ROWS / 50],
      ['events of one resource', `/v1/events?resourceId=${resource}`, 10, 1],
      ['statement page 1', '/v1/merchants/me/statement?page=1&limit=20', 10, ROWS],
      ['statement page 1000', '/v1/merchants/me/statement?page=1000&limit=20', 50, ROWS],
      ['statement of one day page 50', `/v1/merchants/me/statement?from=${day}&to=${day}&page=50&limit=20`, 50, 1000],
      ['statement CSV page 1000', '/v1/merchants/me/statement?format=csv&page=1000&limit=100', 50, ROWS],
    ];
    for (const [name, path, target, minTotal] of targets) {
      const l = await latencies(base + path, m.apiKey, minTotal);
      const p99 = round(percentile(l, 99));
      rows.push(
        { scenario: 'd', metric: `${name} p50 ms`, value: round(percentile(l, 50)) },
        { scenario: 'd', metric: `${name} p99 ms`, value: p99, target: `< ${target}`, pass: p99 < target },
      );
    }
  } finally {
    for (const p of procs) await p.stop();
    if (own) await db.stop();
  }
  report('d', rows, { machine: machine(db.version), rows: ROWS, samples: SAMPLES });
  return rows;
}

if (import.meta.main) await benchListing();
