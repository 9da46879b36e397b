import test from 'ava';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createOnboardedMerchant } from './support/factories.ts';
import { Merchant } from '../src/merchants/merchant.entity.ts';
import { parseBrCode } from '../src/pix/brcode.ts';

// Bad input of any shape gets a 4xx JSON error and changes nothing: the issue's known 500s one by one, then a
// property-based run over every route with arbitrary bodies, strings, numbers, keys, content types and paths.

let app: TestApp;
let token: string;
const ids: Record<string, string> = {};

test.before(async () => {
  app = await startTestApp();
  const merchant = await createOnboardedMerchant(app);
  token = merchant.token;
  const charge = await merchant.http.post('/v1/charges', { amount: 500, description: 'pedido' });
  const webhook = await merchant.http.post('/v1/webhooks/merchant', { url: 'http://127.0.0.1:9/hook' });
  const apiKey = await merchant.http.post('/v1/api-keys', { name: 'k', description: 'd' });
  const keys = await merchant.http.get('/v1/merchants/me/pix-keys');
  Object.assign(ids, {
    charge: charge.body.charge.id,
    txid: charge.body.charge.txid,
    webhook: webhook.body.webhook.id,
    apiKey: apiKey.body.apiKey.id,
    pixKey: keys.body.pixKeys[0].id,
  });
});
test.after.always(async () => {
  await app?.close();
});

// Every business table's contents, hashed: equal before and after means nothing was written. The event stream's
// tables are left out: the API positions committed events in the background, whatever the request in flight
// (`events` itself is compared).
async function snapshot(): Promise<string> {
  const em = app.orm.em.fork();
  const tables: { name: string }[] = await em.execute(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'mikro_orm%'
        and table_name not like 'event\\_stream%'`,
  );
  const sql = tables
    .map(
      ({ name }) =>
        `select '${name}' as t, md5(coalesce(string_agg(x::text, ',' order by x::text), '')) as h from "${name}" x`,
    )
    .join(' union all ');
  const rows: { t: string; h: string }[] = await em.execute(sql);
  return rows.map((r) => `${r.t}:${r.h}`).join(';');
}

async function raw(method: string, path: string, body?: string, contentType?: string) {
  const res = await fetch(app.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) },
    body,
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, type: res.headers.get('content-type') ?? '' };
}

test.serial(
  'NUL and other control characters are refused with field errors in every kind of string field',
  async (t) => {
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/auth/register', { email: 'a@b.co', password: 'x'.repeat(10), name: 'Lo\u0000ja', document: cpf() }],
      ['POST', '/v1/charges', { amount: 100, description: 'des\u0000c' }],
      ['POST', '/v1/charges', { amount: 100, description: 'ok', tracking: { utm_source: 'a\u0000' } }],
      ['POST', '/v1/webhooks/merchant', { url: 'http://127.0.0.1:9/h', name: 'n\u0007' }],
      ['POST', '/v1/api-keys', { name: 'n\u0000', description: 'd' }],
      [
        'POST',
        '/v1/merchants/me/withdrawals',
        { amount: 1, pixKeyType: 'EMAIL', pixKey: 'a@b.co', description: '\u0000' },
      ],
      ['POST', '/v1/charges', { amount: 100, description: 'lone \ud800 half' }],
    ];
    const before = await snapshot();
    for (const [method, path, body] of cases) {
      const res = await raw(method, path, JSON.stringify(body), 'application/json');
      t.is(res.status, 400, `${path} ${JSON.stringify(body)}`);
      t.true(Array.isArray(res.json?.errors) && res.json.errors.length > 0, res.text);
    }
    for (const path of [
      '/pix/qr/%00',
      `/v1/charges/${ids.charge}%00`,
      '/v1/charges?status=PAID%00',
      '/v1/charges/%ff',
    ]) {
      const res = await raw('GET', path);
      t.is(res.status, 400, path);
      t.is(typeof res.json?.message, 'string');
    }
    t.is(await snapshot(), before);
  },
);

test.serial(
  'arrays and objects where a string or an enum is expected, and missing or non-JSON bodies, are 4xx',
  async (t) => {
    const before = await snapshot();
    const webhook = `/v1/webhooks/merchant/${ids.webhook}`;
    const json = 'application/json';
    const cases: [string, string, string | undefined, string | undefined, number][] = [
      ['PATCH', webhook, '{"status":[]}', json, 400],
      ['PATCH', webhook, '{"status":["INACTIVE"]}', json, 400],
      ['PATCH', webhook, '{"status":{"a":1}}', json, 400],
      ['PATCH', webhook, undefined, undefined, 400],
      ['PATCH', webhook, undefined, json, 400],
      ['PATCH', webhook, '[]', json, 400],
      ['PATCH', webhook, '"INACTIVE"', json, 400],
      ['POST', '/v1/merchants/me/pix-keys', '{"type":["CPF"],"key":"12345678909"}', json, 400],
      [
        'POST',
        '/v1/charges',
        '{"amount":100,"description":"x","customer":{"name":"M","document":"x","email":[]}}',
        json,
        400,
      ],
      ['POST', '/v1/charges', 'amount=100&description=x', 'application/x-www-form-urlencoded', 415],
      ['POST', '/v1/charges', '{"amount":100,"description":"x"}', 'text/plain', 415],
      ['POST', '/v1/charges', '{"amount":1e400,"description":"x"}', json, 400],
      ['POST', '/v1/charges', '{"amount":-0,"description":"x"}', json, 400],
      ['POST', '/v1/charges', '{"amount":9007199254740993,"description":"x"}', json, 400],
      ['POST', '/v1/charges', '{"__proto__":{"amount":100},"description":"x"}', json, 400],
      ['POST', '/v1/charges', '{"amount":100,"description":"x","constructor":{"prototype":{"x":1}}}', json, 400],
      ['POST', '/v1/charges', '{"amount":100,', json, 400],
    ];
    for (const [method, path, body, type, status] of cases) {
      const res = await raw(method, path, body, type);
      t.is(res.status, status, `${method} ${path} ${body} (${type}): ${res.text}`);
      t.regex(res.type, /application\/json/);
      t.is(typeof res.json?.message, 'string');
    }
    t.is(await snapshot(), before);
    const webhooks = await client(app.baseUrl, token).get('/v1/webhooks/merchant');
    t.is(webhooks.body.webhooks[0].status, 'ACTIVE');
  },
);

test.serial('a POST that reads no body works without one, with or without a JSON content type', async (t) => {
  const merchant = await createOnboardedMerchant(app);
  for (const type of [undefined, 'application/json']) {
    const charge = await merchant.http.post('/v1/charges', { amount: 300, description: 'sem corpo' });
    const res = await fetch(`${app.baseUrl}/v1/sandbox/charges/${charge.body.charge.id}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.token}`, ...(type ? { 'content-type': type } : {}) },
    });
    t.is(res.status, 202, `${type}: ${await res.text()}`);
  }
});

test.serial('a merchant whose name has no Latin letters takes charges with a valid BR Code', async (t) => {
  for (const name of ['日本語の店', '😀🍕', 'Магазин']) {
    const email = `m-${randomBytes(6).toString('hex')}@example.com`;
    const reg = await client(app.baseUrl).post('/v1/auth/register', {
      email,
      password: 'x'.repeat(12),
      name,
      document: cpf(),
    });
    t.is(reg.status, 201, JSON.stringify(reg.body));
    const em = app.orm.em.fork();
    const merchant = await em.findOneOrFail(Merchant, { user: reg.body.user.id });
    merchant.kycStatus = 'APPROVED';
    merchant.acquirerAccountId = `sandbox-${randomBytes(4).toString('hex')}`;
    await em.flush();
    const http = client(app.baseUrl, reg.body.token);
    t.is((await http.post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: email })).status, 201);
    const charge = await http.post('/v1/charges', { amount: 100, description: 'teste' });
    t.is(charge.status, 201, JSON.stringify(charge.body));
    const parsed = parseBrCode(charge.body.charge.qrCode);
    t.true(parsed.crcValid);
    t.regex(parsed.fields['59'], /^[\x20-\x7E]{1,25}$/, name);
  }
});

// Every route the API serves; {id} is a real resource's id or an arbitrary path segment.
// DELETE gets arbitrary ids only ('none'), so the resources the other cases use stay in place.
const ROUTES: [string, string, string | null][] = [
  ['POST', '/v1/auth/register', null],
  ['POST', '/v1/auth/login', null],
  ['POST', '/v1/api-keys', null],
  ['GET', '/v1/api-keys', null],
  ['DELETE', '/v1/api-keys/{id}', 'none'],
  ['POST', '/v1/charges', null],
  ['GET', '/v1/charges', null],
  ['GET', '/v1/charges/{id}', 'charge'],
  ['POST', '/v1/charges/{id}/refund', 'charge'],
  ['POST', '/v1/sandbox/charges/{id}/infraction', 'charge'],
  ['GET', '/pix/qr/{id}', 'txid'],
  ['GET', '/v1/merchants/me', null],
  ['GET', '/v1/merchants/me/balance', null],
  ['POST', '/v1/merchants/me/withdrawals', null],
  ['GET', '/v1/merchants/me/withdrawals', null],
  ['GET', '/v1/merchants/me/withdrawals/{id}', 'charge'],
  ['POST', '/v1/merchants/me/pix-keys', null],
  ['GET', '/v1/merchants/me/pix-keys', null],
  ['DELETE', '/v1/merchants/me/pix-keys/{id}', 'none'],
  ['GET', '/v1/webhooks/merchant/events', null],
  ['POST', '/v1/webhooks/merchant', null],
  ['GET', '/v1/webhooks/merchant', null],
  ['PATCH', '/v1/webhooks/merchant/{id}', 'webhook'],
  ['DELETE', '/v1/webhooks/merchant/{id}', 'none'],
  ['GET', '/v1/events', null],
  ['GET', '/v1/events/{id}', 'none'],
  ['GET', '/v1/infractions', null],
  ['GET', '/v1/infractions/{id}', 'charge'],
  ['POST', '/v1/infractions/{id}/defense', 'charge'],
];

const FIELDS = ['amount', 'description', 'expiresIn', 'customer', 'tracking', 'email', 'password', 'name', 'document'];
const MORE_FIELDS = [
  'url',
  'events',
  'status',
  'type',
  'key',
  'pixKey',
  'pixKeyType',
  'text',
  'reason',
  'page',
  'limit',
];
const nasty = fc.constantFrom(
  '\u0000',
  'a\u0007b',
  '\u200f\u202eRTL',
  '😀',
  '\ud800',
  '\udfff',
  'e\u0301',
  '\u0085',
  '',
  ' ',
  'x'.repeat(300),
);
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), nasty);
const value = fc.oneof(
  text,
  fc.jsonValue({ maxDepth: 2 }),
  fc.array(text, { maxLength: 3 }),
  fc.constantFrom(0, -1, 1.5, 2 ** 31, Number.MAX_SAFE_INTEGER, 100, 60),
);
const RAW_NUMBERS = ['1e400', '-1e400', '-0', '9007199254740993', '1e-400', '0.1e1'];
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom(...FIELDS, ...MORE_FIELDS), value, { maxKeys: 5 }).map((v) => JSON.stringify(v)),
  fc
    .tuple(fc.constantFrom(...FIELDS, ...MORE_FIELDS), fc.constantFrom(...RAW_NUMBERS))
    .map(([k, n]) => `{"${k}":${n},"description":"x"}`),
  fc.constantFrom(
    '{"__proto__":{"isAdmin":true}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '{"a":',
    '',
    'null',
    '\u0000',
  ),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  undefined,
);
// Percent-encodes UTF-8 bytes (a lone surrogate becomes U+FFFD), as a client library would.
const encode = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const segment = fc.oneof(
  text.map(encode),
  fc.constantFrom('%00', '%ff', '%', '..', '%2e%2e', '%E2%80%AE', 'x'.repeat(400)),
);
const query = fc.option(
  fc.tuple(fc.constantFrom('page', 'limit', 'status', 'x', '__proto__'), text).map(([k, v]) => `?${k}=${encode(v)}`),
  { nil: '' },
);

test.serial(
  'property: any input to any route is a 4xx JSON error or a success, never a 5xx; a 4xx writes nothing',
  async (t) => {
    let refused = 0;
    for (const [method, template, real] of ROUTES) {
      await fc.assert(
        fc.asyncProperty(
          real === null ? fc.constant('') : real === 'none' ? segment : fc.oneof(fc.constant(ids[real]), segment),
          body,
          contentType,
          query,
          async (id, payload, type, qs) => {
            const path = template.replace('{id}', id) + qs;
            const hasBody = method !== 'GET' && method !== 'DELETE';
            const before = await snapshot();
            const res = await raw(method, path, hasBody ? payload : undefined, hasBody ? type : undefined);
            const where = `${method} ${path} ${hasBody ? `${type} ${JSON.stringify(payload)}` : ''} -> ${res.status} ${res.text}`;
            if (res.status >= 500) throw new Error(`5xx: ${where}`);
            if (res.status < 400) return;
            if (!/application\/json/.test(res.type) || typeof res.json?.message !== 'string')
              throw new Error(`not a JSON error: ${where}`);
            refused++;
            if ((await snapshot()) !== before) throw new Error(`a refused request wrote: ${where}`);
          },
        ),
        { numRuns: 20 },
      );
    }
    t.true(refused > ROUTES.length * 10, `only ${refused} requests were refused`);
  },
);
