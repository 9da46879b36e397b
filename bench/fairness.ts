// Scenario (f): fair delivery. A noisy merchant points its webhook at a server that accepts connections and never
// answers, then for FLOOD_SECONDS sends test events (60 a second, as the outside review did: 600 in 10 s) and pays
// charges (PAYMENTS_PER_SECOND); a quiet merchant pays a charge every half second meanwhile and for a while after.
// Measured: the quiet merchant's charge.paid latency, from its pay request to its own receiver, under the flood.
// One daemon with the defaults (WEBHOOK_CONCURRENCY 128, a 10 s POST timeout, WEBHOOK_MERCHANT_CONCURRENCY 32).
import { createServer, type Socket } from 'node:net';
import { freePort, startDatabase, startProc, ask, type Database, type Proc } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';
import { machine, percentile, report, round, type Row } from './lib/report.ts';

const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS || 10);
const TESTS_PER_SECOND = 60;
const PAYMENTS_PER_SECOND = Number(process.env.BENCH_NOISY_PAYMENTS || 20);
const QUIET_SECONDS = FLOOD_SECONDS + 20; // the hanging POSTs of the flood time out 10 s after it ends

// Accepts connections and reads what comes, never answers: every POST to it holds its daemon slot until the timeout.
async function hangingServer() {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('data', () => {});
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    connections: () => connections,
    open: () => sockets.size,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchFairness(db?: Database): Promise<Row[]> {
  const own = !db;
  db ??= await startDatabase();
  const procs: Proc[] = [];
  const rows: Row[] = [];
  const hanging = await hangingServer();
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
    const noisy = await onboardMerchant(base, db.url);
    const quiet = await onboardMerchant(base, db.url);
    const hook = (await noisy.call('POST', '/v1/webhooks/merchant', { url: hanging.url })).webhook.id as string;
    await quiet.call('POST', '/v1/webhooks/merchant', {
      url: `http://127.0.0.1:${receiverPort}/hook`,
      events: ['charge.paid'],
    });
    const charges = async (m: typeof noisy, n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 50)
        ids.push(
          ...(
            await Promise.all(
              Array.from({ length: Math.min(50, n - i) }, () =>
                m.call('POST', '/v1/charges', { amount: 1000, description: 'vizinho' }),
              ),
            )
          ).map((b) => b.charge.id as string),
        );
      return ids;
    };
    const noisyCharges = await charges(noisy, PAYMENTS_PER_SECOND * FLOOD_SECONDS);
    const quietCharges = await charges(quiet, QUIET_SECONDS * 2);

    const now = () => performance.timeOrigin + performance.now();
    const tests = { accepted: 0, refused: 0 };
    const started = performance.now();
    const at = (ms: number) => sleep(Math.max(0, started + ms - performance.now()));
    const noisyLoad = (async () => {
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < TESTS_PER_SECOND * FLOOD_SECONDS; i++) {
        await at((i * 1000) / TESTS_PER_SECOND);
        sends.push(
          fetch(`${base}/v1/webhooks/merchant/${hook}/test`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${noisy.apiKey}` },
            body: JSON.stringify({ event: 'charge.paid' }),
          }).then(async (r) => {
            await r.arrayBuffer();
            if (r.status === 202) tests.accepted++;
            else tests.refused++;
          }),
        );
      }
      await Promise.all(sends);
    })();
    const noisyPayments = (async () => {
      const pays: Promise<unknown>[] = [];
      for (let i = 0; i < noisyCharges.length; i++) {
        await at((i * 1000) / PAYMENTS_PER_SECOND);
        pays.push(noisy.call('POST', `/v1/sandbox/charges/${noisyCharges[i]}/pay`).catch(() => {}));
      }
      await Promise.all(pays);
    })();
    const sentAt = new Map<string, number>();
    const quietLoad = (async () => {
      const pays: Promise<unknown>[] = [];
      for (let i = 0; i < quietCharges.length; i++) {
        await at(500 + i * 500);
        sentAt.set(quietCharges[i], now());
        pays.push(quiet.call('POST', `/v1/sandbox/charges/${quietCharges[i]}/pay`));
      }
      await Promise.all(pays);
    })();
    let inFlight = 0;
    const watch = setInterval(() => (inFlight = Math.max(inFlight, hanging.open())), 100);
    await Promise.all([noisyLoad, noisyPayments, quietLoad]);
    const deadline = Date.now() + 60_000;
    let arrivals: [string, number][] = [];
    while (Date.now() < deadline) {
      arrivals = (await ask<{ arrivals: [string, number][] }>(receiver, 'report')).arrivals;
      if (arrivals.length >= sentAt.size) break;
      await sleep(250);
    }
    clearInterval(watch);
    const latencies = arrivals.filter(([id]) => sentAt.has(id)).map(([id, t]) => t - sentAt.get(id)!);
    const max = latencies.length === sentAt.size ? Math.max(...latencies) : Infinity;
    rows.push(
      {
        scenario: 'f',
        metric: `noisy test sends accepted / refused (${TESTS_PER_SECOND}/s for ${FLOOD_SECONDS} s)`,
        value: `${tests.accepted} / ${tests.refused}`,
      },
      { scenario: 'f', metric: 'noisy POSTs hanging at once, most', value: inFlight },
      {
        scenario: 'f',
        metric: `quiet charge.paid p50 ms (${sentAt.size} payments, one each 0.5 s)`,
        value: round(percentile(latencies, 50)),
      },
      { scenario: 'f', metric: 'quiet charge.paid p99 ms', value: round(percentile(latencies, 99)) },
      {
        scenario: 'f',
        metric: 'quiet charge.paid max ms',
        value: round(max),
        target: '< 5000',
        pass: max < 5000,
      },
      { scenario: 'f', metric: 'quiet charge.paid received', value: latencies.length, target: String(sentAt.size) },
    );
  } finally {
    for (const p of procs) await p.stop();
    await hanging.close();
    if (own) await db.stop();
  }
  report('f', rows, { machine: machine(db.version) });
  return rows;
}

if (import.meta.main) await benchFairness();
