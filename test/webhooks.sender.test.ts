import test from 'ava';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createSender, retryAfterSeconds } from '../src/webhooks/sender.ts';
import { generateSecret, maskSecret, signedHeaders } from '../src/webhooks/signing.ts';
import { MAX_ATTEMPTS, nextRetryDelay } from '../src/webhooks/retry.ts';
import { startReceiver } from './support/receiver.ts';

const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };

test('production: http is refused, and https to loopback is refused before connecting, also after DNS resolution', async (t) => {
  const r = await startReceiver();
  t.teardown(() => r.close());
  const sender = createSender({ production: true, timeoutMs: 2000 });
  t.teardown(() => sender.close());
  t.like(await sender.post(r.url(), headers, '{}'), {
    statusCode: null,
    success: false,
    response: 'Destino recusado: HTTPS é obrigatório',
  });
  for (const url of [
    `https://127.0.0.1:${r.port}/hook`,
    `https://localhost:${r.port}/hook`,
    `https://[::1]:${r.port}/hook`,
  ]) {
    t.like(
      await sender.post(url, headers, '{}'),
      {
        statusCode: null,
        success: false,
        response: 'Destino recusado: o host resolve para um endereço privado, de loopback ou link-local',
      },
      url,
    );
  }
  t.is(r.requests.length, 0);
});

test('outside production loopback is reachable; connections are kept alive and redirects are not followed', async (t) => {
  const r = await startReceiver((req) =>
    req.path === '/moved' ? { status: 301, headers: { location: '/hook' } } : { status: 200, body: 'ok' },
  );
  t.teardown(() => r.close());
  const sender = createSender({ production: false, timeoutMs: 2000 });
  t.teardown(() => sender.close());
  t.like(await sender.post(r.url(), headers, '{"a":1}'), {
    statusCode: 200,
    success: true,
    response: 'ok',
    retryAfterSeconds: null,
  });
  t.like(await sender.post(r.url(), headers, '{"a":2}'), { statusCode: 200, success: true });
  t.is(r.requests[0].remotePort, r.requests[1].remotePort, 'the second POST reused the first connection');
  t.like(await sender.post(r.url('/moved'), headers, '{}'), { statusCode: 301, success: false });
  t.deepEqual(
    r.requests.map((q) => q.path),
    ['/hook', '/hook', '/moved'],
  );
  const refused = await sender.post('http://127.0.0.1:1/closed', headers, '{}');
  t.like(refused, { statusCode: null, success: false });
  t.regex(refused.response, /^Falha de conexão \(ECONNREFUSED\): /);
});

test('the verdict is the status line: a 2xx whose body stalls is a success; no status before the timeout is a timeout', async (t) => {
  const server = createServer((req, res) => {
    if (req.url === '/stall') res.writeHead(200).write('parcial'); // and never ends
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sender = createSender({ production: false, timeoutMs: 300 });
  t.teardown(() => sender.close());
  t.deepEqual(await sender.post(`${base}/stall`, headers, '{}'), {
    statusCode: 200,
    response: 'parcial',
    success: true,
    retryAfterSeconds: null,
  });
  const started = Date.now();
  t.deepEqual(await sender.post(`${base}/silent`, headers, '{}'), {
    statusCode: null,
    response: 'Tempo esgotado: o destino não respondeu em 300 ms',
    success: false,
    retryAfterSeconds: null,
  });
  // ended by its 300 ms timeout, not by the receiver (which never answers): bounded generously for a loaded machine
  t.true(Date.now() - started < 5000);
});

test('a long response is read up to 4 KB, cut before a split character, and leaves the connection clean', async (t) => {
  const huge = 'x'.repeat(20 * 1024 * 1024);
  const r = await startReceiver((req) =>
    req.path === '/big'
      ? { status: 503, body: `a${'é'.repeat(5000)}`, headers: { 'retry-after': '7' } }
      : req.path === '/huge'
        ? { status: 200, body: huge }
        : { status: 204 },
  );
  t.teardown(() => r.close());
  const sender = createSender({ production: false, timeoutMs: 2000 });
  t.teardown(() => sender.close());
  const big = await sender.post(r.url('/big'), headers, '{}');
  t.like(big, { statusCode: 503, success: false, retryAfterSeconds: 7 });
  t.is(big.response, `a${'é'.repeat(2047)}`, '4095 bytes: the 2048th é would straddle the limit');
  // the next POST gets its own clean answer (no leftover bytes of the long body on a reused socket)
  t.like(await sender.post(r.url('/next'), headers, '{}'), { statusCode: 204, success: true, response: '' });
  const hugeAnswer = await sender.post(r.url('/huge'), headers, '{}');
  t.is(Buffer.byteLength(hugeAnswer.response), 4096);
  t.like(await sender.post(r.url('/next'), headers, '{}'), { statusCode: 204, success: true, response: '' });
});

test('signatures follow Standard Webhooks: the official library verifies them with the secret without wh_', (t) => {
  const secret = generateSecret();
  const body = JSON.stringify({
    id: 'e1',
    event: 'charge.paid',
    createdAt: new Date().toISOString(),
    data: { amount: 100 },
  });
  const signed = signedHeaders(secret, 'msg_abc', body);
  t.deepEqual(new StandardWebhook(secret.slice(3)).verify(body, signed), JSON.parse(body));
  t.is(
    signed['webhook-signature'],
    new StandardWebhook(secret.slice(3)).sign('msg_abc', new Date(Number(signed['webhook-timestamp']) * 1000), body),
  );
  t.is(maskSecret(secret), `wh_****${secret.slice(-4)}`);
});

test('the retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed; scaled; Retry-After wins when longer', (t) => {
  t.is(MAX_ATTEMPTS, 8);
  t.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8].map((n) => nextRetryDelay(n, 1)),
    [5, 300, 1800, 7200, 18000, 36000, 36000, null],
  );
  t.deepEqual(
    [1, 2, 7].map((n) => nextRetryDelay(n, 0.01)),
    [0.05, 3, 360],
  );
  t.is(nextRetryDelay(1, 1, 120), 120);
  t.is(nextRetryDelay(2, 1, 120), 300, 'a shorter Retry-After does not hurry the schedule');
  t.is(nextRetryDelay(1, 1, 10 * 86400), 36000, 'capped at the longest step');
  t.is(nextRetryDelay(8, 1, 60), null, 'nor extends it');
  t.is(retryAfterSeconds(429, '120'), 120);
  const fromDate = retryAfterSeconds(503, new Date(Date.now() + 60_000).toUTCString())!;
  t.true(fromDate > 55 && fromDate <= 60, `HTTP-date: ${fromDate} s`);
  t.is(retryAfterSeconds(500, '120'), null);
  t.is(retryAfterSeconds(429, 'soon'), null);
});
