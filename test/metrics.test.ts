import test from 'ava';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { freePort } from './support/procs.ts';
import { createTestDatabase } from './support/db.ts';
import { DEAD_LETTER, QUEUES } from '../src/platform/queue.ts';

// One API with its worker and webhook daemon, each serving its own METRICS_PORT; one charge created, paid and delivered.
let app: TestApp;
let receiver: Receiver;
const stops: (() => Promise<void>)[] = [];
const ports = { worker: 0, webhooks: 0 };
let chargeId = '';
test.before(async () => {
  app = await startTestApp();
  receiver = await startReceiver();
  for (const kind of ['worker', 'webhooks'] as const) {
    ports[kind] = await freePort();
    stops.push(await startBackground(app, kind, { METRICS_PORT: String(ports[kind]) }));
  }
  const m = await createOnboardedMerchant(app);
  await m.http.post('/v1/webhooks/merchant', { url: receiver.url(), events: ['charge.paid'] });
  const created = await m.http.post('/v1/charges', { amount: 2500, description: 'produto' });
  chargeId = created.body.charge.id;
  if ((await m.http.post(`/v1/sandbox/charges/${chargeId}/pay`)).status !== 202) throw new Error('pay failed');
  await waitUntil(async () => (await m.http.get(`/v1/charges/${chargeId}`)).body.charge.status === 'PAID');
  await receiver.waitFor(1);
  await m.http.get(`/v1/charges/${randomUUID()}`); // 404 through a route with a parameter
  await client(app.baseUrl).get(`/scanner/${randomUUID()}`); // no route
});
test.after.always(async () => {
  for (const stop of stops) await stop();
  await receiver?.close();
  await app?.close();
});

// The value of the sample `name{labels...}` in Prometheus text (extra labels allowed), undefined when absent.
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const scrape = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};

test('/healthz, /health and /readyz answer 200 with a database, without credentials', async (t) => {
  const http = client(app.baseUrl);
  for (const path of ['/healthz', '/health'])
    t.deepEqual([(await http.get(path)).status, (await http.get(path)).body], [200, { status: 'ok' }]);
  const ready = await http.get('/readyz');
  t.deepEqual([ready.status, ready.body], [200, { status: 'ok', checks: { database: 'ok', queue: 'ok' } }]);
});

test('/metrics: requests by route template and status, queues, charges by status, failed deliveries, process metrics', async (t) => {
  const res = await scrape(`${app.baseUrl}/metrics`);
  t.is(res.status, 200);
  t.regex(res.type, /^text\/plain; version=0\.0\.4/);
  const m = res.text;
  const requests = (method: string, route: string, status: string) =>
    sample(m, 'http_request_duration_seconds_count', { method, route, status_code: status });
  t.is(requests('POST', '/v1/charges', '201'), 1);
  t.is(requests('POST', '/v1/sandbox/charges/:id/pay', '202'), 1);
  t.true(requests('GET', '/v1/charges/:id', '200')! >= 1);
  t.is(requests('GET', '/v1/charges/:id', '404'), 1);
  t.is(requests('GET', 'unmatched', '404'), 1);
  t.is(sample(m, 'http_request_duration_seconds_bucket', { route: '/v1/charges', le: '+Inf' }), 1);
  t.false(m.includes(chargeId), 'no raw URL in a label');
  t.false(m.includes('/scanner'));

  for (const queue of [...Object.values(QUEUES), DEAD_LETTER]) {
    for (const state of ['waiting', 'deferred', 'active'])
      t.not(sample(m, 'pix_queue_jobs', { queue, state }), undefined, `${queue} ${state}`);
    t.not(sample(m, 'pix_queue_oldest_waiting_seconds', { queue }), undefined, queue);
  }
  t.is(sample(m, 'pix_charges', { status: 'PAID' }), 1);
  t.is(sample(m, 'pix_charges', { status: 'PENDING' }), 0);
  t.is(sample(m, 'pix_webhook_deliveries_failed_7d'), 0);
  t.is(sample(m, 'pix_scrape_up', { collector: 'queues' }), 1);
  t.true(sample(m, 'process_cpu_user_seconds_total')! > 0);
  t.not(sample(m, 'nodejs_eventloop_lag_seconds'), undefined);
});

test('queue gauges follow a real backlog: the head job ages live, the counts within a monitor pass', async (t) => {
  await app.boss.send(DEAD_LETTER, { note: 'metrics test' }); // nobody works the dead letter queue
  await new Promise((r) => setTimeout(r, 1100));
  const aged = sample((await scrape(`${app.baseUrl}/metrics`)).text, 'pix_queue_oldest_waiting_seconds', {
    queue: DEAD_LETTER,
  });
  t.true(aged! >= 1, String(aged));
  // the supervising worker refreshes pg-boss' cached counts every few seconds
  const waiting = await waitUntil(
    async () =>
      sample((await scrape(`${app.baseUrl}/metrics`)).text, 'pix_queue_jobs', { queue: DEAD_LETTER, state: 'waiting' }),
    15_000,
  );
  t.is(waiting, 1);
});

test("the worker's METRICS_PORT serves its settlement lag and process metrics, and /healthz", async (t) => {
  const base = `http://127.0.0.1:${ports.worker}`;
  const res = await scrape(`${base}/metrics`);
  t.is(res.status, 200);
  t.is(sample(res.text, 'pix_settlement_lag_seconds_count'), 1);
  t.true(sample(res.text, 'pix_settlement_lag_seconds_sum')! >= 0);
  t.not(sample(res.text, 'process_resident_memory_bytes'), undefined);
  t.false(res.text.includes('http_request_duration_seconds'), "the API's metrics stay in the API");
  t.deepEqual(await (await fetch(`${base}/healthz`)).json(), { status: 'ok' });
  t.is((await fetch(`${base}/nope`)).status, 404);
});

test("the daemon's METRICS_PORT counts deliveries by outcome where they happen", async (t) => {
  const url = `http://127.0.0.1:${ports.webhooks}/metrics`;
  const text = await waitUntil(async () => {
    const m = (await scrape(url)).text;
    return sample(m, 'pix_webhook_deliveries_total', { outcome: 'succeeded' }) === 1 && m;
  });
  t.is(sample(text, 'pix_webhook_deliveries_total', { outcome: 'failed' }), 0);
  t.not(sample(text, 'process_cpu_user_seconds_total'), undefined);
});

test('METRICS_TOKEN: /metrics (API and METRICS_PORT) wants the bearer token; the probes stay open', async (t) => {
  const token = 'metrics-' + randomUUID();
  const guarded = await startTestApp({ METRICS_TOKEN: token });
  const port = await freePort();
  const stop = await startBackground(guarded, 'webhooks', { METRICS_PORT: String(port), METRICS_TOKEN: token });
  t.teardown(async () => {
    await stop();
    await guarded.close();
  });
  for (const url of [`${guarded.baseUrl}/metrics`, `http://127.0.0.1:${port}/metrics`]) {
    t.is((await scrape(url)).status, 401, url);
    t.is((await scrape(url, { authorization: `Bearer ${token}x` })).status, 401, url);
    t.is((await scrape(url, { authorization: token })).status, 401, url);
    const ok = await scrape(url, { authorization: `Bearer ${token}` });
    t.is(ok.status, 200, url);
    t.not(sample(ok.text, 'process_cpu_user_seconds_total'), undefined, url);
  }
  t.is((await client(guarded.baseUrl).get('/healthz')).status, 200);
  t.is((await client(guarded.baseUrl).get('/readyz')).status, 200);
});

// A TCP relay to PostgreSQL the test can break: `hang` accepts connections and never answers, `close` leaves nothing
// listening; both drop the connections already open.
async function pgRelay(target: URL) {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  let hanging = false;
  const server = createServer((downstream) => {
    track(downstream);
    if (hanging) return;
    const upstream = connect(Number(target.port), target.hostname);
    track(upstream);
    upstream.on('close', () => downstream.destroy());
    downstream.on('close', () => upstream.destroy());
    downstream.pipe(upstream).pipe(downstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const dropAll = () => sockets.forEach((s) => s.destroy());
  return {
    port: (server.address() as AddressInfo).port,
    hang() {
      hanging = true;
      dropAll();
    },
    async close() {
      const closed = new Promise((r) => server.close(r));
      dropAll();
      await closed;
    },
  };
}

test('/readyz answers 503 naming what failed when the database hangs or nothing listens; /healthz stays 200', async (t) => {
  const real = new URL(await createTestDatabase());
  const relay = await pgRelay(real);
  const viaRelay = new URL(real);
  viaRelay.hostname = '127.0.0.1';
  viaRelay.port = String(relay.port);
  const broken = await startTestApp({ DATABASE_URL: viaRelay.toString() });
  t.teardown(async () => {
    await relay.close().catch(() => {});
    // the pools wait for a database that is gone: give them a moment, not the test's whole timeout
    await Promise.race([broken.close().catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
  });
  const http = client(broken.baseUrl);
  t.is((await http.get('/readyz')).status, 200);

  relay.hang();
  let started = Date.now();
  const hung = await http.get('/readyz');
  t.deepEqual(
    [hung.status, hung.body],
    [503, { status: 'unavailable', checks: { database: 'failed', queue: 'failed' } }],
  );
  // bounded by the readiness timeout (1.5 s; without it the request would hang): far below this on a loaded machine
  t.true(Date.now() - started < 15_000, 'bounded by the readiness timeout');
  const metrics = await scrape(`${broken.baseUrl}/metrics`);
  t.is(metrics.status, 200, 'a scrape still answers, without the database gauges');
  t.is(sample(metrics.text, 'pix_scrape_up', { collector: 'queues' }), 0);
  t.is(sample(metrics.text, 'pix_charges'), undefined);

  await relay.close();
  started = Date.now();
  const refused = await http.get('/readyz');
  t.deepEqual([refused.status, refused.body.checks], [503, { database: 'failed', queue: 'failed' }]);
  t.true(Date.now() - started < 15_000);
  t.deepEqual([(await http.get('/healthz')).status, (await http.get('/healthz')).body], [200, { status: 'ok' }]);
});
