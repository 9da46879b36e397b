import test from 'ava';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../../test/support/app.ts';
import { createPixClient, PixApiError } from '../src/index.ts';
import { integrator, startService } from './support.ts';

let app: TestApp;
let close: () => Promise<void>;
const cleanups: (() => Promise<unknown>)[] = [];
test.before(async () => {
  ({ app, close } = await startService());
});
test.after.always(async () => {
  for (const c of cleanups) await c();
  await close?.();
});

// What the proxy does with the n-th request (0-based): `forward` it to the API, `lost` forwards it and answers 503
// (the API did the work, the answer never came), `drop` closes the connection unanswered, or answers a status.
type Step = 'forward' | 'lost' | 'drop' | { status: number; headers?: Record<string, string> };

// A real HTTP proxy on 127.0.0.1 in front of the real API, failing as scripted; every request it saw is kept.
async function flakyProxy(script: (n: number) => Step) {
  const seen: { method: string; url: string; key: string | undefined; at: number }[] = [];
  const forward = async (req: IncomingMessage, body: Buffer) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
    ) as Record<string, string>;
    return fetch(new URL(req.url!, app.baseUrl), {
      method: req.method,
      headers,
      body: body.length ? body : undefined,
    });
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const n = seen.push({
      method: req.method!,
      url: req.url!,
      key: req.headers['x-idempotency-key'] as string | undefined,
      at: performance.now(),
    });
    const step = script(n - 1);
    if (step === 'drop') return void req.socket.destroy();
    if (step === 'forward' || step === 'lost') {
      const answer = await forward(req, Buffer.concat(chunks));
      const text = await answer.text();
      if (step === 'lost') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream timeout');
      return void res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(text);
    }
    res
      .writeHead(step.status, { 'content-type': 'application/json', ...step.headers })
      .end(JSON.stringify({ message: 'proxy' }));
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => req.socket.destroy()));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

test('a creation survives a lost answer, a dropped connection and a 429: the same key each time, one charge', async (t) => {
  const { apiKey, pix: direct } = await integrator(app);
  const steps: Step[] = ['lost', 'drop', { status: 429, headers: { 'retry-after': '1' } }];
  const proxy = await flakyProxy((n) => steps[n] ?? 'forward');
  const pix = createPixClient({ baseUrl: proxy.url, token: apiKey, retryBaseMs: 10 });

  const charge = await pix.charges.create({ amount: 1990, description: 'Pedido 9' });
  t.like(charge, { amount: 1990, description: 'Pedido 9', status: 'PENDING' });
  t.is(proxy.seen.length, 4, 'three retries');
  t.true(proxy.seen.every((r) => r.method === 'POST' && r.url === '/v1/charges'));
  const [key] = proxy.seen.map((r) => r.key);
  t.regex(key!, /^[0-9a-f-]{36}$/);
  t.deepEqual(
    proxy.seen.map((r) => r.key),
    [key, key, key, key],
  );
  t.true(proxy.seen[3].at - proxy.seen[2].at >= 950, 'the 429 Retry-After: 1 was waited');

  // the first attempt created it; the last was its replay
  const { charges, total } = (await direct.GET('/v1/charges')).data!;
  t.is(total, 1);
  t.is(charges[0].id, charge.id);
});

test('a GET is retried on 5xx; it gives up after 3 retries with PixApiError', async (t) => {
  const { apiKey, pix: direct } = await integrator(app);
  const proxy = await flakyProxy((n) => (n < 2 ? { status: 502 } : 'forward'));
  const pix = createPixClient({ baseUrl: proxy.url, token: apiKey, retryBaseMs: 10 });
  t.is((await pix.charges.list()).total, 0);
  t.is(proxy.seen.length, 3);

  const down = await flakyProxy(() => ({ status: 503, headers: { 'x-request-id': 'req-proxy' } }));
  const failing = createPixClient({ baseUrl: down.url, token: apiKey, retryBaseMs: 10 });
  const err = await t.throwsAsync(failing.charges.create({ amount: 500, description: 'x' }), {
    instanceOf: PixApiError,
  });
  t.like(err, { status: 503, code: 'http_503', message: 'proxy', requestId: 'req-proxy' });
  t.is(down.seen.length, 4, 'the first attempt and 3 retries');
  t.is(new Set(down.seen.map((r) => r.key)).size, 1);
  t.is((await direct.GET('/v1/charges')).data!.total, 0);

  const once = createPixClient({ baseUrl: down.url, token: apiKey, retryBaseMs: 10, maxRetries: 0 });
  await t.throwsAsync(once.charges.list(), { instanceOf: PixApiError });
  t.is(down.seen.length, 5);
});

test('a network that never answers: PixApiError network_error, the cause kept', async (t) => {
  const { apiKey } = await integrator(app);
  const proxy = await flakyProxy(() => 'drop');
  const pix = createPixClient({ baseUrl: proxy.url, token: apiKey, retryBaseMs: 10 });
  const err = await t.throwsAsync(pix.charges.get('00000000-0000-4000-8000-000000000000'), {
    instanceOf: PixApiError,
  });
  t.like(err, { status: 0, code: 'network_error', requestId: undefined });
  t.true(err.cause instanceof Error);
  t.is(proxy.seen.length, 4);
});

test('a write the API cannot deduplicate (updating a webhook) is retried on 429 only, with no key', async (t) => {
  const { apiKey, pix: direct } = await integrator(app);
  const url = 'https://loja.example.com/hook';
  const hook = (await direct.POST('/v1/webhooks/merchant', { body: { url } })).data!.webhook;
  const limited = await flakyProxy((n) => (n === 0 ? { status: 429, headers: { 'retry-after': '0' } } : 'forward'));
  const pix = createPixClient({ baseUrl: limited.url, token: apiKey, retryBaseMs: 10 });
  t.is((await pix.webhooks.update(hook.id, { name: 'Primeiro' })).name, 'Primeiro');
  t.is(limited.seen.length, 2);
  t.is(limited.seen[0].key, undefined, 'the API takes no key there: none is sent');

  const lost = await flakyProxy((n) => (n === 0 ? 'lost' : 'forward'));
  const once = createPixClient({ baseUrl: lost.url, token: apiKey, retryBaseMs: 10 });
  const err = await t.throwsAsync(once.webhooks.update(hook.id, { name: 'Segundo' }), { instanceOf: PixApiError });
  t.is(err.status, 503);
  t.is(lost.seen.length, 1, 'not sent again after a 5xx');
  t.is((await direct.GET('/v1/webhooks/merchant')).data!.webhooks[0].name, 'Segundo', 'the lost one was applied');
});

test('webhooks.create after a 503 whose first attempt did create: retried with the same key, one webhook', async (t) => {
  const { apiKey, pix: direct } = await integrator(app);
  const steps: Step[] = ['lost', 'drop', { status: 429, headers: { 'retry-after': '0' } }];
  const proxy = await flakyProxy((n) => steps[n] ?? 'forward');
  const pix = createPixClient({ baseUrl: proxy.url, token: apiKey, retryBaseMs: 10 });
  const hook = await pix.webhooks.create({ url: 'https://loja.example.com/hook', events: ['charge.paid'] });
  t.is(proxy.seen.length, 4, 'three retries');
  t.regex(proxy.seen[0].key!, /^[0-9a-f-]{36}$/);
  t.is(new Set(proxy.seen.map((r) => r.key)).size, 1, 'the same key each time');
  // the first attempt created it; the last was its replay, with the secret
  const { webhooks } = (await direct.GET('/v1/webhooks/merchant')).data!;
  t.deepEqual(
    webhooks.map((w) => w.id),
    [hook.id],
  );
  t.regex(hook.secret, /^wh_/);
  t.is(webhooks[0].secret, `wh_****${hook.secret.slice(-4)}`, 'the secret returned is the one stored');

  // the key given is the one sent
  const given = await flakyProxy((n) => (n === 0 ? 'lost' : 'forward'));
  const mine = createPixClient({ baseUrl: given.url, token: apiKey, retryBaseMs: 10 });
  const second = await mine.webhooks.create({ url: 'https://loja.example.com/b' }, { idempotencyKey: 'hook-b' });
  t.deepEqual(
    given.seen.map((r) => r.key),
    ['hook-b', 'hook-b'],
  );
  t.is((await direct.GET('/v1/webhooks/merchant')).data!.webhooks.length, 2);
  t.not(second.id, hook.id);
});
