// Scenario (d): GET /v1/merchants/me/withdrawals, GET /v1/charges and GET /v1/events for a merchant with 1,000,000 of
// each (seeded in bulk), page 1 and page 1,000 (events also by type and by resource), p50/p99 over sequential requests.
import { freePort, startDatabase, startProc, type Database, type Proc } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';
import { machine, percentile, report, round, type Row } from './lib/report.ts';
import { createOrm } from '../src/database.ts';
import { seedWithdrawals } from './lib/seed-withdrawals.ts';
import { seedCharges } from './lib/seed-charges.ts';
import { seedEvents } from './lib/seed-events.ts';

const ROWS = Number(process.env.BENCH_ROWS || 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES || 300);

async function latencies(url: string, apiKey: string, minTotal: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = (await res.json()) as { total: number };
    if (res.status !== 200 || body.total < minTotal) throw new Error(`${url}: ${res.status} total ${body.total}`);
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
    // what autovacuum would have done to tables that grew over time, so its work on the fresh bulk load does not run
    // on the same two cores during the measurement
    await orm.em
      .fork()
      .getConnection()
      .execute('vacuum (analyze) withdrawals, charges, withdrawal_counts, charge_counts, events, event_counts');
    await orm.em.fork().getConnection().execute('checkpoint');
    await orm.close();
    rows.push({
      scenario: 'd',
      metric: `seeding 3 x ${ROWS} rows + vacuum (s)`,
      value: round((performance.now() - seedStart) / 1000),
    });
    const first = (await (await fetch(`${base}/v1/events?limit=1`, { headers: auth })).json()) as {
      events: { data: { id: string } }[];
    };
    const resource = first.events[0].data.id;
    const targets: [string, string, number, number][] = [
      ['withdrawals page 1', '/v1/merchants/me/withdrawals?page=1&limit=20', 10, ROWS],
      ['withdrawals page 1000', '/v1/merchants/me/withdrawals?page=1000&limit=20', 50, ROWS],
      ['charges page 1', '/v1/charges?page=1&limit=20', 10, ROWS],
      ['charges page 1000', '/v1/charges?page=1000&limit=20', 50, ROWS],
      ['events page 1', '/v1/events?page=1&limit=20', 10, ROWS],
      ['events page 1000', '/v1/events?page=1000&limit=20', 50, ROWS],
      ['events of one type page 500', '/v1/events?type=withdraw.failed&page=500&limit=20', 50, ROWS / 50],
      ['events of one resource', `/v1/events?resourceId=${resource}`, 10, 1],
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
