// Scenario (b) at rising rates: the payment pipeline's knee, the highest rate at which pay -> webhook p99 stays under
// 100 ms (issue 24's measure), then 400 payments/s, the goal, whatever the knee. Each rate on a fresh database and
// fresh processes, 10 s measured after 3 s of warm-up; the search stops at the first rate that misses.
import { startDatabase } from './lib/stack.ts';
import { report, type Row } from './lib/report.ts';
import { benchLatency } from './latency.ts';

const RATES = (process.env.BENCH_KNEE_RATES || '50,100,150,200,300')
  .split(',')
  .map(Number)
  .filter((r) => r > 0);
const GOAL_RATE = 400;
const P99_MS = 100;

async function at(rate: number) {
  const db = await startDatabase(`pix_bench_knee_${rate}_${process.pid}`);
  try {
    const { p50, p99, procs } = await benchLatency(db, { rate, seconds: 10, warmupSeconds: 3, scenario: 'knee' });
    for (const p of procs) await p.stop();
    return { p50, p99 };
  } finally {
    await db.stop();
  }
}

const show = (p99: number) => (Number.isFinite(p99) ? p99 : 'webhooks missing');

export async function benchKnee(): Promise<Row[]> {
  const rows: Row[] = [];
  let knee = 0;
  const measured = new Map<number, { p50: number; p99: number }>();
  for (const rate of RATES) {
    const r = await at(rate);
    measured.set(rate, r);
    rows.push({
      scenario: 'b',
      metric: `pay -> webhook p50 / p99 ms at ${rate}/s (10 s)`,
      value: `${r.p50} / ${show(r.p99)}`,
    });
    if (r.p99 >= P99_MS) break;
    knee = rate;
  }
  const goal = measured.get(GOAL_RATE) ?? (await at(GOAL_RATE));
  if (knee === RATES.at(-1) && goal.p99 < P99_MS) knee = GOAL_RATE;
  rows.push(
    {
      scenario: 'b',
      metric: `pay -> webhook p50 ms at ${GOAL_RATE}/s (10 s)`,
      value: goal.p50,
      target: '< 25',
      pass: goal.p50 < 25,
    },
    {
      scenario: 'b',
      metric: `pay -> webhook p99 ms at ${GOAL_RATE}/s (10 s)`,
      value: show(goal.p99),
      target: `< ${P99_MS}`,
      pass: goal.p99 < P99_MS,
    },
    {
      scenario: 'b',
      metric: `knee: highest rate of ${RATES.join(', ')}/s with p99 < ${P99_MS} ms`,
      value: knee,
      target: `>= ${GOAL_RATE}`,
      pass: knee >= GOAL_RATE,
    },
  );
  report('b-knee', rows, { rates: RATES });
  return rows;
}

if (import.meta.main) await benchKnee();
