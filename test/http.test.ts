import test from 'ava';
import express from 'express';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { createMerchant } from './support/factories.ts';
import { errorHandler, requestLogger } from '../src/platform/http.ts';
import { REDACT_PATHS } from '../src/platform/logger.ts';

const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    logLines.push(String(chunk));
    cb();
  },
});
let app: TestApp;
test.before(async () => {
  // behind one proxy hop (the test client plays it): X-Forwarded-Proto decides whether a request came over https
  app = await startTestApp(
    { TRUST_PROXY: '1' },
    { logger: pino({ level: 'debug', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink) },
  );
});
test.after.always(async () => {
  await app?.close();
});

test('unknown routes answer 404 JSON, never HTML', async (t) => {
  for (const path of ['/nope', '/v1/unknown', '/v2/charges']) {
    const res = await client(app.baseUrl).get(path);
    t.is(res.status, 404);
    t.regex(res.headers.get('content-type') ?? '', /application\/json/);
    t.is(typeof res.body.message, 'string');
  }
});

test('malformed JSON is 400 and an oversized body is 413, both JSON', async (t) => {
  const bad = await client(app.baseUrl).call('POST', '/v1/auth/login', '{"email":', {
    'content-type': 'application/json',
  });
  t.is(bad.status, 400);
  t.is(typeof bad.body.message, 'string');
  const big = await client(app.baseUrl).post('/v1/auth/login', { email: 'a@b.com', password: 'x'.repeat(200_000) });
  t.is(big.status, 413);
  t.is(typeof big.body.message, 'string');
});

test('every response carries x-request-id, echoing a sane one from the request', async (t) => {
  const given = await client(app.baseUrl).get('/health', { 'x-request-id': 'abc-123' });
  t.is(given.headers.get('x-request-id'), 'abc-123');
  const generated = await client(app.baseUrl).get('/nope');
  t.regex(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const unsafe = await client(app.baseUrl).get('/health', { 'x-request-id': 'a b<script>' });
  t.not(unsafe.headers.get('x-request-id'), 'a b<script>');
  const err = await client(app.baseUrl).get('/v1/merchants/me');
  t.truthy(err.headers.get('x-request-id'));
});

test('logs carry request ids and never passwords, tokens, API keys or the Authorization header', async (t) => {
  const m = await createMerchant(app);
  const key = (await m.http.post('/v1/api-keys', { name: 'k', description: 'd' })).body.apiKey.value as string;
  await client(app.baseUrl).post('/v1/auth/login', { email: m.email, password: m.password });
  await client(app.baseUrl, key).get('/v1/merchants/me', { 'x-request-id': 'trace-me-42' });
  const all = logLines.join('');
  t.true(all.includes('trace-me-42'));
  for (const secret of [m.password, m.token, key, key.slice(3), 'Bearer'])
    t.false(all.includes(secret), secret.slice(0, 12));
});

test('probes and scrapes leave no request log line; other requests do', async (t) => {
  for (const path of ['/healthz', '/health', '/readyz', '/metrics'])
    t.is((await client(app.baseUrl).get(path, { 'x-request-id': `probe-${path.slice(1)}` })).status, 200, path);
  await client(app.baseUrl).get('/nope', { 'x-request-id': 'not-a-probe' });
  const all = logLines.join('');
  t.false(all.includes('probe-'));
  t.true(all.includes('not-a-probe'));
});

test('an unexpected error is a 500 with Erro interno and the request id, without a stack trace', async (t) => {
  const crashing = express();
  crashing.use(requestLogger(pino({ level: 'silent' })));
  crashing.get('/boom', () => {
    throw new Error('secret internals at /srv/app.ts:12');
  });
  crashing.use(errorHandler);
  const server = crashing.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  const res = await client(`http://127.0.0.1:${port}`).get('/boom', { 'x-request-id': 'req-500' });
  server.close();
  t.is(res.status, 500);
  t.deepEqual(res.body, { code: 'internal_error', message: 'Erro interno', requestId: 'req-500' });
});

test('security headers (helmet), CORS closed by default and open to listed origins only, BODY_LIMIT', async (t) => {
  const res = await fetch(`${app.baseUrl}/v1/webhooks/merchant/events`, {
    headers: { origin: 'https://evil.example' },
  });
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.truthy(res.headers.get('strict-transport-security'));
  t.truthy(res.headers.get('content-security-policy'));
  t.is(res.headers.get('x-powered-by'), null);
  t.is(res.headers.get('access-control-allow-origin'), null);
  // over plain http no upgrade-insecure-requests (it would send a browser to https for /docs' own assets); over https
  // (X-Forwarded-Proto from the trusted proxy hop) the whole of helmet's defaults
  t.notRegex(res.headers.get('content-security-policy') ?? '', /upgrade-insecure-requests/);
  t.regex(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  t.is(res.headers.get('cross-origin-opener-policy'), null);
  const https = await fetch(`${app.baseUrl}/docs`, { headers: { 'x-forwarded-proto': 'https' } });
  t.regex(https.headers.get('content-security-policy') ?? '', /upgrade-insecure-requests/);
  t.is(https.headers.get('cross-origin-opener-policy'), 'same-origin');
  await https.arrayBuffer();

  const other = await startTestApp({ CORS_ORIGINS: 'https://shop.example', BODY_LIMIT: '1kb', TRUST_PROXY: 'false' });
  try {
    const preflight = await fetch(`${other.baseUrl}/v1/charges`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    t.is(preflight.status, 204);
    t.is(preflight.headers.get('access-control-allow-origin'), 'https://shop.example');
    t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
    const denied = await fetch(`${other.baseUrl}/v1/charges`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    t.is(denied.headers.get('access-control-allow-origin'), null);
    // a client's own X-Forwarded-Proto is not believed when no proxy is trusted
    const spoofed = await fetch(`${other.baseUrl}/docs`, { headers: { 'x-forwarded-proto': 'https' } });
    t.notRegex(spoofed.headers.get('content-security-policy') ?? '', /upgrade-insecure-requests/);
    await spoofed.arrayBuffer();
    const big = await client(other.baseUrl).post('/v1/auth/login', { email: 'a@b.co', password: 'x'.repeat(2000) });
    t.deepEqual(
      [big.status, big.body],
      [413, { code: 'payload_too_large', message: 'Corpo da requisição muito grande' }],
    );
  } finally {
    await other.close();
  }
});
