// Scenario (b): payment -> webhook received. A steady 100 sandbox payments per second for 30 s, after 5 s at the same
// rate that are not measured (JIT warm-up: the first seconds of fresh processes run unoptimised code); latency is the
// receiver's arrival time minus the moment the pay request was sent.
import { freePort, startDatabase, startProc, ask, type Database, type Proc } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';
import { machine, percentile, report, round, type Row } from './lib/report.ts';

// scenario: the name its rows and bench/results/latest.json entry take ('b'; the knee search runs it under others)
type LatencyOptions = { rate: number; seconds: number; warmupSeconds: number; scenario?: string };
const LATENCY_DEFAULTS: LatencyOptions = {
  rate: Number(process.env.BENCH_RATE || 100),
  seconds: Number(process.env.BENCH_LATENCY_SECONDS || 30),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 5),
};

export async function benchLatency(
  db?: Database,
  { rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, scenario = 'b' }: LatencyOptions = LATENCY_DEFAULTS,
): Promise<{ rows: Row[]; procs: Proc[]; p50: number; p99: number }> {
  const own = !db;
  db ??= await startDatabase();
  const procs: Proc[] = [];
  const rows: Row[] = [];
  let p50 = NaN;
  let p99 = NaN;
  try {
    const port = await freePort();
    const receiverPort = await freePort();
    const receiver = await startProc('receiver', 'bench/receiver-server.ts', {
      PORT: String(receiverPort),
      RECORD_IDS: 'true',
    });
    procs.push(receiver);
    const env = { DATABASE_URL: db.url, PORT: String(port) };
    procs.push(
      await startProc('api', 'apps/api/main.ts', env),
      await startProc('worker', 'apps/worker/main.ts', env),
      await startProc('webhooks', 'apps/webhooks/main.ts', env),
    );
    const base = `http://127.0.0.1:${port}`;
    const m = await onboardMerchant(base, db.url);
    await m.call('POST', '/v1/webhooks/merchant', {
      url: `http://127.0.0.1:${receiverPort}/hook`,
      events: ['charge.paid'],
    });

    // the charges to pay, created beforehand (not measured)
    const warmup = RATE * WARMUP_SECONDS;
    const total = warmup + RATE * SECONDS;
    const ids: string[] = [];
    for (let i = 0; i < total; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, total - i) }, () =>
          m.call('POST', '/v1/charges', { amount: 1000, description: 'latência' }),
        ),
      );
      ids.push(...batch.map((b) => b.charge.id as string));
    }

    const sentAt = new Map<string, number>();
    const now = () => performance.timeOrigin + performance.now();
    const started = performance.now();
    const pays: Promise<unknown>[] = [];
    let refused = 0;
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE; // steady schedule, not "as fast as possible"
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (i >= warmup) sentAt.set(ids[i], now());
      // past the pipeline's knee the client's own connections can time out: counted as refused payments, not a crash
      pays.push(
        m.call('POST', `/v1/sandbox/charges/${ids[i]}/pay`).catch(() => {
          refused++;
          sentAt.delete(ids[i]);
        }),
      );
    }
    await Promise.all(pays);
    const deadline = Date.now() + 30_000;
    let report_: { count: number; arrivals: [string, number][] };
    do {
      await new Promise((r) => setTimeout(r, 250));
      report_ = await ask(receiver, 'report');
    } while (report_.arrivals.length < total && Date.now() < deadline);
    const measured = total - warmup;
    const latencies = report_.arrivals.filter(([id]) => sentAt.has(id)).map(([id, at]) => at - sentAt.get(id)!);
    p50 = round(percentile(latencies, 50));
    const p99Received = round(percentile(latencies, 99));
    // for the knee: a payment refused, or whose webhook never came, is the worst latency
    p99 = latencies.length === measured ? p99Received : Infinity;
    if (refused > 0)
      rows.push({ scenario, metric: 'pay requests refused or timed out', value: refused, target: '0', pass: false });
    rows.push(
      {
        scenario,
        metric: `payments measured (${RATE}/s for ${SECONDS} s, after ${WARMUP_SECONDS} s of warm-up)`,
        value: measured,
      },
      {
        scenario,
        metric: 'webhooks received (measured payments)',
        value: latencies.length,
        target: String(measured),
        pass: latencies.length === measured,
      },
      { scenario, metric: 'pay -> webhook p50 ms', value: p50, target: '< 50', pass: p50 < 50 },
      { scenario, metric: 'pay -> webhook p99 ms', value: p99Received, target: '< 250', pass: p99Received < 250 },
      { scenario, metric: 'pay -> webhook max ms', value: round(Math.max(...latencies)) },
    );
  } catch (err) {
    if (!own) for (const p of procs) await p.stop(); // the caller gets no procs to stop
    throw err;
  } finally {
    if (own) {
      for (const p of procs) await p.stop();
      await db.stop();
    }
  }
  report(scenario, rows, { machine: machine(db.version), rate: RATE, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
  return { rows, procs, p50, p99 };
}

if (import.meta.main) await benchLatency();
