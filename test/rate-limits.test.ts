import test from 'ava';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app.ts';
import { client, type Reply } from './support/client.ts';
import { createApiKeyFor, createMerchant } from './support/factories.ts';
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { createRateLimits, RATE_LIMIT_MESSAGE } from '../src/platform/rate-limits.ts';

// Two API processes over one database, as two dynos of one deployment: the budgets are counted in PostgreSQL.
const LIMITS = {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_API_PER_MINUTE: '10',
  RATE_LIMIT_AUTH_IP_PER_MINUTE: '8',
  RATE_LIMIT_AUTH_EMAIL_PER_MINUTE: '3',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '6',
  TRUST_PROXY: '1', // as behind one router: the requests below name their client in X-Forwarded-For
};
let a: TestApp;
let b: TestApp;
test.before(async () => {
  a = await startTestApp(LIMITS);
  b = await startTestApp(LIMITS, { databaseUrl: a.databaseUrl });
});
test.after.always(async () => {
  await b?.close();
  await a?.close();
});

// trust proxy 1: the platform router's last X-Forwarded-For entry is the client IP.
const from = (ip: string) => ({ 'x-forwarded-for': ip });
let nextIp = 1;
const freshIp = () => `198.51.100.${nextIp++}`;

// Registered from 127.0.0.1 (6 registrations in the file, under the per-IP budget of 8).
const merchant = () => createMerchant(a);

function assertLimited(t: { is: (a: unknown, b: unknown) => void; true: (v: boolean) => void }, r: Reply) {
  t.is(r.status, 429);
  t.is(JSON.stringify(r.body), JSON.stringify({ code: 'rate_limited', message: RATE_LIMIT_MESSAGE }));
  const retryAfter = Number(r.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
}

test.serial(
  'one merchant spends one budget across both processes: exactly the limit gets through, the rest 429',
  async (t) => {
    const m = await merchant();
    const key = await createApiKeyFor(a, m.token); // the JWT and the API key share the merchant's budget
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        client(i % 2 ? a.baseUrl : b.baseUrl, i % 3 ? m.token : key).get('/v1/merchants/me'),
      ),
    );
    const ok = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    // createApiKeyFor already spent one request of the budget
    t.is(ok.length, 9);
    t.is(limited.length, 21);
    for (const r of limited) assertLimited(t, r);

    const other = await merchant();
    t.is((await other.http.get('/v1/merchants/me')).status, 200, 'another merchant has its own budget');
  },
);

test.serial('login: at most N attempts per e-mail, whatever the IP and the process', async (t) => {
  const m = await merchant();
  const replies = await Promise.all(
    Array.from({ length: 7 }, (_, i) =>
      client(i % 2 ? a.baseUrl : b.baseUrl).post(
        '/v1/auth/login',
        { email: m.email.toUpperCase(), password: 'wrong password' },
        from(freshIp()),
      ),
    ),
  );
  // the registration spent one attempt of the e-mail's 3
  t.deepEqual(replies.map((r) => r.status).sort(), [401, 401, 429, 429, 429, 429, 429]);
  for (const r of replies.filter((x) => x.status === 429)) assertLimited(t, r);
  const right = await client(a.baseUrl).post(
    '/v1/auth/login',
    { email: m.email, password: m.password },
    from(freshIp()),
  );
  t.is(right.status, 429, 'the right password waits too: the e-mail is the target of the guessing');
});

test.serial('login and register: at most N requests per IP across both processes', async (t) => {
  const ip = freshIp();
  const replies = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      client(i % 2 ? a.baseUrl : b.baseUrl).post(
        '/v1/auth/login',
        { email: `nobody-${i}@example.com`, password: 'x' },
        from(ip),
      ),
    ),
  );
  t.is(replies.filter((r) => r.status === 401).length, 8);
  t.is(replies.filter((r) => r.status === 429).length, 4);
  const register = await client(b.baseUrl).post(
    '/v1/auth/register',
    { email: 'new@example.com', password: 'long enough', name: 'Loja', document: '52998224725' },
    from(ip),
  );
  assertLimited(t, register);
  t.is(
    (await client(a.baseUrl).post('/v1/auth/login', { email: 'x@example.com', password: 'x' }, from(freshIp()))).status,
    401,
  );
});

// A key of `m` that is then revoked: every use of it is a refused credential (401 Chave de API inativa).
async function revokedKeyOf(m: { token: string }) {
  const http = client(a.baseUrl, m.token);
  const { apiKey } = (await http.post('/v1/api-keys', { name: 'old', description: 'revoked' })).body;
  const revoked = await http.del(`/v1/api-keys/${apiKey.id}`);
  if (revoked.status !== 200) throw new Error(`revoking failed: ${revoked.status}`);
  return apiKey.value as string;
}
const randomKey = () => `lk_${randomBytes(32).toString('base64url')}`;

test.serial(
  'refused credentials from one IP: at most N a minute across both processes, then 429 for every refused one',
  async (t) => {
    const m = await merchant();
    const revoked = await revokedKeyOf(m);
    const ip = freshIp();
    // a flood of different invalid credentials (random keys, garbage, a tampered JWT) and a revoked key
    const bad = () => [randomKey(), 'not-a-jwt', revoked, `${m.token.slice(0, -2)}xx`, randomKey()];
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client(i % 2 ? a.baseUrl : b.baseUrl, bad()[i % 5]).get('/v1/merchants/me', from(ip)),
      ),
    );
    t.is(replies.filter((r) => r.status === 401).length, 6);
    const limited = replies.filter((r) => r.status === 429);
    t.is(limited.length, 14);
    for (const r of limited) assertLimited(t, r);
    // still refused until the window ends, whatever new guess it sends, on both processes and the acquirer's route
    for (const base of [a.baseUrl, b.baseUrl]) {
      assertLimited(t, await client(base, randomKey()).get('/v1/merchants/me', from(ip)));
      assertLimited(t, await client(base).post('/v1/acquirer/notifications', { pix: [] }, from(ip)));
    }
    // a forgotten header is no guess: never counted
    const other = freshIp();
    const bare = await Promise.all(Array.from({ length: 10 }, () => client(a.baseUrl).get('/v1/charges', from(other))));
    t.deepEqual([...new Set(bare.map((r) => r.status))], [401]);
    t.is((await client(a.baseUrl, randomKey()).get('/v1/merchants/me', from(other))).status, 401);
  },
);

test.serial(
  "a valid credential is never refused for another's failures: a revoked key hammering from a shared IP",
  async (t) => {
    const bad = await merchant();
    const revoked = await revokedKeyOf(bad);
    const ip = freshIp(); // one NAT in front of several merchants' servers
    for (let i = 0; i < 30; i++) await client(i % 2 ? a.baseUrl : b.baseUrl, revoked).get('/v1/charges', from(ip));

    const other = await merchant();
    const key = await createApiKeyFor(a, other.token);
    for (const base of [a.baseUrl, b.baseUrl]) {
      t.is((await client(base, key).get('/v1/merchants/me', from(ip))).status, 200, 'an API key of another merchant');
      t.is((await client(base, other.token).get('/v1/merchants/me', from(ip))).status, 200, 'a JWT of another one');
      t.is((await client(base, bad.token).get('/v1/merchants/me', from(ip))).status, 200, "the bad key's own JWT");
      assertLimited(t, await client(base, revoked).get('/v1/merchants/me', from(ip)));
    }
  },
);

test.serial('a refused credential has a budget of its own: past N refusals it is 429 from any IP', async (t) => {
  const m = await merchant();
  const revoked = await revokedKeyOf(m);
  // a fresh IP each time: no IP goes over its budget, the key does
  const replies = [];
  for (let i = 0; i < 9; i++)
    replies.push(await client(i % 2 ? a.baseUrl : b.baseUrl, revoked).get('/v1/merchants/me', from(freshIp())));
  t.deepEqual(
    replies.map((r) => r.status),
    [401, 401, 401, 401, 401, 401, 429, 429, 429],
  );
  t.deepEqual(replies[0].body, { code: 'unauthenticated', message: 'Chave de API inativa' });
  for (const r of replies.slice(6)) assertLimited(t, r);
  // the same key written another way (the scheme's case, extra spaces) is the same credential
  const ip = freshIp();
  assertLimited(
    t,
    await client(a.baseUrl).get('/v1/merchants/me', { authorization: `bearer   ${revoked}`, ...from(ip) }),
  );
  t.is((await client(b.baseUrl, m.token).get('/v1/merchants/me', from(ip))).status, 200, 'that IP serves the rest');
});

test('a database that does not answer turns no request into a 500: each process counts in memory instead', async (t) => {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere',
    RATE_LIMIT_API_PER_MINUTE: '2',
  });
  const limits = createRateLimits(config, createLogger('silent', 'test'));
  const app = express();
  app.use((req, _res, next) => {
    req.user = { merchantId: 'm-1', userId: 'u-1' } as Express.User;
    next();
  });
  app.get('/', limits.perCredential, (_req, res) => void res.json({ ok: true }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await fetch(`${url}/`)).status); // a bare app: not an operation of the document
  t.deepEqual(statuses, [200, 200, 429]);
});
