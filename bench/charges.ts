// Scenario (a): POST /v1/charges with an API key, 50 connections, against the bare Express + INSERT baseline.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { freePort, startDatabase, startProc, childPids, rssMb, privateMb, pssMb, type Database } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';
import { machine, report, round, type Row } from './lib/report.ts';

const DURATION = Number(process.env.BENCH_DURATION || 20);
const CONNECTIONS = 50;

async function load(url: string, headers: Record<string, string>, body: string) {
  const r = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    rps: round(r.requests.average, 0),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total: r.requests.total,
  };
}

export async function benchCharges(db?: Database): Promise<Row[]> {
  const own = !db;
  db ??= await startDatabase();
  const rows: Row[] = [];
  try {
    const basePort = await freePort();
    const baseline = await startProc('baseline', 'bench/baseline-server.ts', {
      DATABASE_URL: db.url,
      PORT: String(basePort),
    });
    const base = await load(
      `http://127.0.0.1:${basePort}/items`,
      {},
      JSON.stringify({ merchantId: randomUUID(), amount: 1050, description: 'Pedido' }),
    );
    await baseline.stop();
    rows.push(
      { scenario: 'a', metric: 'baseline Express+INSERT req/s', value: base.rps },
      { scenario: 'a', metric: 'baseline p99 ms', value: base.p99 },
    );

    for (const processes of [1, 2]) {
      const port = await freePort();
      const api = await startProc('api', 'apps/api/main.ts', {
        DATABASE_URL: db.url,
        PORT: String(port),
        WEB_CONCURRENCY: String(processes),
        DB_POOL_MAX: '10',
      });
      const m = await onboardMerchant(`http://127.0.0.1:${port}`, db.url);
      const r = await load(
        `http://127.0.0.1:${port}/v1/charges`,
        { authorization: `Bearer ${m.apiKey}` },
        JSON.stringify({ amount: 1050, description: 'Pedido de benchmark' }),
      );
      const rss = Math.max(api.rssMb(), ...childPids(api.child.pid!).map((pid) => rssMb(pid)));
      const own = Math.max(api.privateMb(), ...childPids(api.child.pid!).map(privateMb));
      // the whole web process type as one dyno runs it: the cluster primary and its API processes
      const pids = [api.child.pid!, ...childPids(api.child.pid!)];
      const webTotal = Math.round(pids.reduce((sum, pid) => sum + pssMb(pid), 0));
      const webRss = pids.reduce((sum, pid) => sum + rssMb(pid), 0);
      await api.stop();
      const ratio = round(r.rps / base.rps, 3);
      const tag = `${processes} API process${processes > 1 ? 'es' : ''}`;
      rows.push(
        { scenario: 'a', metric: `POST /v1/charges req/s (${tag})`, value: r.rps },
        {
          scenario: 'a',
          metric: `ratio to baseline (${tag})`,
          value: ratio,
          target: '>= 0.15 (stretch 0.25)',
          pass: ratio >= 0.15,
        },
        { scenario: 'a', metric: `p99 ms (${tag})`, value: r.p99, target: '< 100', pass: r.p99 < 100 },
        {
          scenario: 'a',
          metric: `non-2xx + errors (${tag})`,
          value: r.non2xx + r.errors,
          target: '0',
          pass: r.non2xx + r.errors === 0,
        },
        {
          scenario: 'e',
          metric: `API RSS MB after (a) (${tag}, largest process)`,
          value: rss,
          target: '< 150',
          pass: rss < 150,
        },
        { scenario: 'e', metric: `API private MB (RssAnon) after (a) (${tag})`, value: own },
        {
          scenario: 'e',
          metric: `web total MB after (a) (WEB_CONCURRENCY=${processes}, PSS of all its processes)`,
          value: webTotal,
          ...(processes === 2 ? { target: '< 512 (one standard-1x dyno)', pass: webTotal < 512 } : {}),
        },
        { scenario: 'e', metric: `web RSS sum MB after (a) (WEB_CONCURRENCY=${processes})`, value: webRss },
      );
    }
  } finally {
    if (own) await db.stop();
  }
  report('a', rows, { machine: machine(db.version), durationSeconds: DURATION, connections: CONNECTIONS });
  return rows;
}

if (import.meta.main) await benchCharges();
