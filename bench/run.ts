// `npm run bench`: every scenario in one run on one machine, one table, bench/results/latest.json.
// Each scenario also runs alone: node bench/<charges|latency|knee|deliveries|listing|startup|fairness|recurring>.ts.
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDatabase, root } from './lib/stack.ts';
import { machine, type Row } from './lib/report.ts';
import { benchCharges } from './charges.ts';
import { benchLatency } from './latency.ts';
import { benchKnee } from './knee.ts';
import { benchDeliveries } from './deliveries.ts';
import { benchListing } from './listing.ts';
import { benchStartup } from './startup.ts';
import { benchFairness } from './fairness.ts';
import { benchRecurring } from './recurring.ts';

const rows: Row[] = [];
const scenarios: [string, (db: Awaited<ReturnType<typeof startDatabase>>) => Promise<Row[]>][] = [
  ['a', (db) => benchCharges(db)],
  [
    'b',
    async (db) => {
      const { rows: r, procs } = await benchLatency(db);
      // RSS of each process at the end of (b)
      const rss = procs
        .filter((p) => p.name !== 'receiver')
        .flatMap((p) => [
          { scenario: 'e', metric: `${p.name} RSS MB after (b)`, value: p.rssMb() } as Row,
          { scenario: 'e', metric: `${p.name} private MB (RssAnon) after (b)`, value: p.privateMb() } as Row,
        ]);
      for (const p of procs) await p.stop();
      return [...r, ...rss];
    },
  ],
  ['c', (db) => benchDeliveries(db)],
  ['d', (db) => benchListing(db)],
  ['f', (db) => benchFairness(db)],
  ['g', (db) => benchRecurring(db)],
];
for (const [name, run] of scenarios) {
  const db = await startDatabase(`pix_bench_${name}_${process.pid}`); // a fresh database per scenario
  try {
    rows.push(...(await run(db)));
  } finally {
    await db.stop();
  }
}
rows.push(...(await benchKnee())); // (b) at rising rates, and at 400/s
rows.push(...(await benchStartup()));

const file = join(root, 'bench/results/latest.json');
const all = JSON.parse(readFileSync(file, 'utf8'));
const db = await startDatabase(`pix_bench_v_${process.pid}`);
all.summary = { at: new Date().toISOString(), machine: machine(db.version), rows };
await db.stop();
writeFileSync(file, JSON.stringify(all, null, 2));
console.log('\n## All scenarios\n');
console.log('| scenario | metric | value | target | pass |\n|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.scenario} | ${r.metric} | ${r.value} | ${r.target ?? ''} | ${r.pass === undefined ? '' : r.pass ? 'yes' : 'NO'} |`,
  );
