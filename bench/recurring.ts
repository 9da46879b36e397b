// Scenario (g): Pix Automático. (i) `npm run ops -- recurring:run` (a real CLI process, as an operator or the hourly
// job would run it) over 100,000 APPROVED mandates with automatic charging all due that day: charges created per
// second, the process' start included; then the same run again (nothing left to do). (ii) GET /v1/mandates and GET
// /v1/recurring-charges page 1 for a merchant with 1,000,000 of each (seeded in bulk), p50/p99 over sequential
// requests.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { freePort, root, startDatabase, startProc, type Database, type Proc } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';
import { machine, percentile, report, round, type Row } from './lib/report.ts';
import { seedAutoMandates, seedMandateListing } from './lib/seed-mandates.ts';
import { createOrm } from '../src/database.ts';

const MANDATES = Number(process.env.BENCH_MANDATES || 100_000);
const ROWS = Number(process.env.BENCH_ROWS || 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES || 300);
const START = '2027-03-10';
const DAY = '2027-03-06'; // START - leadDays

// recurring:run --date DAY as its own process: its JSON and its wall time.
async function recurringRun(url: string): Promise<{ created: number; expired: number; seconds: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'scripts/ops.ts'), 'recurring:run', '--date', DAY], {
    env: { ...process.env, DATABASE_URL: url, NODE_ENV: 'development', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`recurring:run exited with ${code}`);
  return { ...JSON.parse(out), seconds: (performance.now() - started) / 1000 };
}

async function latencies(url: string, apiKey: string, minTotal: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    const { total } = (await res.json()) as { total: number };
    if (res.status !== 200 || total < minTotal) throw new Error(`${url}: ${res.status} total ${total}`);
    if (i >= 20) out.push(performance.now() - t); // the first 20 warm caches and the JIT
  }
  return out;
}

export async function benchRecurring(db?: Database): Promise<Row[]> {
  const own = !db;
  db ??= await startDatabase();
  const rows: Row[] = [];
  const procs: Proc[] = [];
  try {
    const port = await freePort();
    procs.push(await startProc('api', 'apps/api/main.ts', { DATABASE_URL: db.url, PORT: String(port) }));
    const base = `http://127.0.0.1:${port}`;
    const charging = await onboardMerchant(base, db.url);
    const listing = await onboardMerchant(base, db.url);
    const orm = await createOrm(db.url, { pool: { min: 0, max: 2 } });
    await seedAutoMandates(orm.em.fork(), charging.merchantId, MANDATES, START);
    await orm.em.fork().getConnection().execute('checkpoint');

    const run = await recurringRun(db.url);
    if (run.created !== MANDATES) throw new Error(`recurring:run created ${run.created} of ${MANDATES}`);
    const rate = round(run.created / run.seconds, 0);
    rows.push(
      { scenario: 'g', metric: `recurring:run over ${MANDATES} due mandates (s)`, value: round(run.seconds) },
      { scenario: 'g', metric: 'recurring:run charges/s', value: rate, target: '>= 1000', pass: rate >= 1000 },
    );
    const again = await recurringRun(db.url);
    rows.push({ scenario: 'g', metric: 'recurring:run again, nothing to do (s)', value: round(again.seconds) });

    const seedStart = performance.now();
    await seedMandateListing(orm.em.fork(), listing.merchantId, ROWS);
    await orm.em.fork().getConnection().execute('checkpoint');
    await orm.close();
    rows.push({
      scenario: 'g',
      metric: `seeding ${ROWS} mandates + recurring charges + hidden charges (s)`,
      value: round((performance.now() - seedStart) / 1000),
    });
    const targets: [string, string][] = [
      ['mandates page 1', '/v1/mandates?page=1&limit=20'],
      ['recurring charges page 1', '/v1/recurring-charges?page=1&limit=20'],
    ];
    for (const [name, path] of targets) {
      const l = await latencies(base + path, listing.apiKey, ROWS);
      const p99 = round(percentile(l, 99));
      rows.push(
        { scenario: 'g', metric: `${name} p50 ms`, value: round(percentile(l, 50)) },
        { scenario: 'g', metric: `${name} p99 ms`, value: p99, target: '< 10', pass: p99 < 10 },
      );
    }
  } finally {
    for (const p of procs) await p.stop();
    if (own) await db.stop();
  }
  report('g', rows, { machine: machine(db.version), mandates: MANDATES, rows: ROWS, samples: SAMPLES });
  return rows;
}

if (import.meta.main) await benchRecurring();
