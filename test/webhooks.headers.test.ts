import test from 'ava';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver } from './support/receiver.ts';
import { snapshot } from './support/snapshot.ts';
import { createSender } from '../src/webhooks/sender.ts';
import { HEADER_MESSAGES, sendableHeaders } from '../src/webhooks/webhook-headers.ts';

// A webhook's custom headers may not name what HTTP keeps for the connection or the body (RFC 9110's connection
// options, Expect, Proxy-*, Content-*): refused on create and PATCH; and one stored before they were refused is never
// sent (sendableHeaders), so a `Trailer` cannot fail its deliveries for ever.

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';
const RESERVED = [
  'Trailer',
  'TE',
  'te',
  'Upgrade',
  'Expect',
  'Keep-Alive',
  'Proxy-Authorization',
  'Proxy-Authenticate',
  'Proxy-Connection',
  'Content-Encoding',
  'Content-Range',
  'Content-MD5',
  'CONTENT-LANGUAGE',
  'Connection',
  'Transfer-Encoding',
  'Via',
  'Max-Forwards',
  'HTTP2-Settings',
  'Host',
  'User-Agent',
  'Content-Type',
  'Content-Length',
  'Webhook-Id',
];

test('create and PATCH refuse every connection-level or body-level header name, listing the reserved ones', async (t) => {
  const m = await createMerchant(app);
  const kept = { Authorization: 'Bearer segredo', 'X-Tenant': 'loja-1' };
  const w = (await m.http.post(PATH, { url: 'http://127.0.0.1:9/hook', headers: kept })).body.webhook;
  const before = await snapshot(app);
  for (const name of RESERVED) {
    const headers = { 'X-Tenant': 'loja-1', [name]: 'x' };
    const created = await m.http.post(PATH, { url: 'http://127.0.0.1:9/hook', headers });
    t.is(created.status, 400, name);
    t.deepEqual(created.body.errors, [{ field: 'headers', message: HEADER_MESSAGES.reserved(name) }], name);
    const patched = await m.http.patch(`${PATH}/${w.id}`, { headers });
    t.is(patched.status, 400, name);
    t.deepEqual(patched.body.errors, [{ field: 'headers', message: HEADER_MESSAGES.reserved(name) }], name);
  }
  t.is(await snapshot(app), before, 'nothing created or changed');
  t.deepEqual((await m.http.get(PATH)).body.webhooks[0].headers, kept);
  // the message says which names are reserved
  const message = HEADER_MESSAGES.reserved('Trailer');
  for (const listed of ['trailer', 'te', 'upgrade', 'expect', 'keep-alive', 'proxy-*', 'content-*', 'webhook-*'])
    t.true(message.split(/[(), ]+/).includes(listed), listed);
  // names that only look alike are a merchant's own
  const fine = { 'X-Trailer': 'a', 'Tenant-Id': 'b', 'X-Content-Type-Options': 'c', Cookie: 'd', Teapot: 'e' };
  const ok = await m.http.patch(`${PATH}/${w.id}`, { headers: fine });
  t.is(ok.status, 200, JSON.stringify(ok.body));
  t.deepEqual(ok.body.webhook.headers, fine);
});

test('sendableHeaders drops the reserved names a webhook stored before they were refused, and the POST goes through', async (t) => {
  t.is(sendableHeaders(null), null);
  t.is(sendableHeaders({}), null);
  t.is(sendableHeaders({ Trailer: 'x', te: 'trailers' }), null);
  const stored = {
    Trailer: 'x-checksum',
    Expect: '100-continue',
    Upgrade: 'h2c',
    'Keep-Alive': 'timeout=5',
    TE: 'trailers',
    'Proxy-Authorization': 'Basic eA==',
    'Content-Encoding': 'gzip',
    Authorization: 'Bearer segredo',
    'X-Tenant': 'loja-1',
  };
  t.deepEqual(sendableHeaders(stored), { Authorization: 'Bearer segredo', 'X-Tenant': 'loja-1' });
  // whatever a row holds, only well-formed names and values leave
  t.deepEqual(sendableHeaders({ 'X Bad': 'v', 'X-Num': 1, 'X-Ok': 'v', 'X-Line': 'a\nb' }), { 'X-Ok': 'v' });

  const r = await startReceiver();
  t.teardown(() => r.close());
  const sender = createSender({ production: false, timeoutMs: 5000 });
  t.teardown(() => sender.close());
  const signed = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
  // as stored, the attempt fails on our side before anything is sent (what made a delivery retry for ever)
  const raw = await sender.post(r.url(), { ...stored, ...signed }, '{}');
  t.false(raw.success);
  t.is(r.requests.length, 0);
  const sent = await sender.post(r.url(), { ...sendableHeaders(stored), ...signed }, '{}');
  t.like(sent, { success: true, statusCode: 200 });
  t.is(r.requests.length, 1);
  t.is(r.requests[0].headers.authorization, 'Bearer segredo');
  t.is(r.requests[0].headers['x-tenant'], 'loja-1');
  for (const name of ['trailer', 'expect', 'upgrade', 'te', 'proxy-authorization', 'content-encoding'])
    t.is(r.requests[0].headers[name], undefined, name);
});
