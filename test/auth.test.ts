import test from 'ava';
import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createApiKeyFor, createMerchant } from './support/factories.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const anon = () => client(app.baseUrl);

test('register creates a USER with a merchant and returns a 7-day JWT', async (t) => {
  const res = await anon().post('/v1/auth/register', {
    email: ' New.Shop@Example.com ',
    password: 'secret-password',
    name: 'Padaria Pão Quente',
    document: '529.982.247-25',
  });
  t.is(res.status, 201);
  t.deepEqual(Object.keys(res.body).sort(), ['token', 'user']);
  t.is(res.body.user.email, 'new.shop@example.com');
  t.is(res.body.user.role, 'USER');
  t.regex(res.body.user.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const payload = jwt.decode(res.body.token) as jwt.JwtPayload;
  t.is(payload.exp! - payload.iat!, 604800);
  t.is(payload.sub, res.body.user.id);

  const me = await client(app.baseUrl, res.body.token).get('/v1/merchants/me');
  t.is(me.status, 200);
  t.like(me.body.merchant, {
    name: 'Padaria Pão Quente',
    document: '52998224725',
    status: 'ACTIVE',
    kycStatus: 'PENDING',
    acquirerConfigured: false,
  });
  t.deepEqual(me.body.merchant.fee, { bps: app.config.platformFeeBps, fixed: app.config.platformFeeFixed });
  t.truthy(Date.parse(me.body.merchant.createdAt));
});

test('register refuses a duplicate e-mail with 409, whatever its case', async (t) => {
  const body = { email: 'dup@example.com', password: 'secret-password', name: 'Loja', document: cpf() };
  t.is((await anon().post('/v1/auth/register', body)).status, 201);
  const again = await anon().post('/v1/auth/register', { ...body, email: 'DUP@example.com', document: cpf() });
  t.is(again.status, 409);
  t.is(typeof again.body.message, 'string');
});

test('register validates every field and answers 400 with field errors', async (t) => {
  const res = await anon().post('/v1/auth/register', {
    email: 'not-an-email',
    password: 'short',
    name: 'X',
    document: '52998224724',
  });
  t.is(res.status, 400);
  t.is(typeof res.body.message, 'string');
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), ['document', 'email', 'name', 'password']);
  const cnpj = await anon().post('/v1/auth/register', {
    email: 'cnpj@example.com',
    password: 'secret-password',
    name: 'Empresa',
    document: '11.222.333/0001-81',
  });
  t.is(cnpj.status, 201);
  for (const document of [undefined, 52998224725, null, ['52998224725']]) {
    const res = await anon().post('/v1/auth/register', {
      email: 'doc@example.com',
      password: 'secret-password',
      name: 'Empresa',
      document,
    });
    t.is(res.status, 400, JSON.stringify(document));
  }
  const longPassword = await anon().post('/v1/auth/register', {
    email: 'long@example.com',
    password: 'x'.repeat(129),
    name: 'Empresa',
    document: cpf(),
  });
  t.is(longPassword.status, 400);
});

test('login returns token and user; bad credentials get 401 Credenciais inválidas', async (t) => {
  const m = await createMerchant(app);
  const ok = await anon().post('/v1/auth/login', { email: m.email.toUpperCase(), password: m.password });
  t.is(ok.status, 200);
  t.deepEqual(ok.body.user, { id: m.userId, email: m.email, role: 'USER' });
  t.is((await client(app.baseUrl, ok.body.token).get('/v1/merchants/me')).status, 200);

  const wrong = await anon().post('/v1/auth/login', { email: m.email, password: 'wrong password' });
  t.deepEqual([wrong.status, wrong.body], [401, { code: 'invalid_credentials', message: 'Credenciais inválidas' }]);
  const unknown = await anon().post('/v1/auth/login', { email: 'nobody@example.com', password: 'whatever1' });
  t.deepEqual([unknown.status, unknown.body], [401, { code: 'invalid_credentials', message: 'Credenciais inválidas' }]);
  t.is((await anon().post('/v1/auth/login', {})).status, 400);
});

test('missing Authorization header: 401 Cabeçalho de autorização ausente', async (t) => {
  const res = await anon().get('/v1/merchants/me');
  t.deepEqual([res.status, res.body], [401, { code: 'unauthenticated', message: 'Cabeçalho de autorização ausente' }]);
  const charges = await anon().get('/v1/api-keys');
  t.deepEqual(
    [charges.status, charges.body],
    [401, { code: 'unauthenticated', message: 'Cabeçalho de autorização ausente' }],
  );
});

test('invalid, tampered, expired or foreign JWTs: 401 Token inválido ou expirado', async (t) => {
  const m = await createMerchant(app);
  const [h, p, s] = m.token.split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  const tampered = [h, Buffer.from(JSON.stringify({ ...claims, role: 'ADMIN' })).toString('base64url'), s].join('.');
  const expired = jwt.sign({ role: 'USER' }, app.config.jwtSecret, { subject: m.userId, expiresIn: -10 });
  const foreign = jwt.sign({ role: 'USER' }, 'another-secret-another-secret-another', {
    subject: m.userId,
    expiresIn: 600,
  });
  const noneAlg = [Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url'), p, ''].join('.');
  for (const token of ['garbage', tampered, expired, foreign, noneAlg]) {
    const res = await client(app.baseUrl, token).get('/v1/merchants/me');
    t.deepEqual(
      [res.status, res.body],
      [401, { code: 'unauthenticated', message: 'Token inválido ou expirado' }],
      token,
    );
  }
  const basic = await anon().get('/v1/merchants/me', { authorization: 'Basic dXNlcjpwYXNz' });
  t.deepEqual([basic.status, basic.body], [401, { code: 'unauthenticated', message: 'Token inválido ou expirado' }]);
});

test('only what the API issues is a JWT: HS256, with exp, at most 7 days old, about a user id (401, never 500)', async (t) => {
  const m = await createMerchant(app);
  const secret = app.config.jwtSecret;
  const now = Math.floor(Date.now() / 1000);
  const tokens = {
    'no exp': jwt.sign({ role: 'USER' }, secret, { subject: m.userId }),
    'issued 8 days ago, exp still ahead': jwt.sign({ role: 'USER', iat: now - 8 * 86400 }, secret, {
      subject: m.userId,
      expiresIn: '30d',
    }),
    HS512: jwt.sign({ role: 'USER' }, secret, { algorithm: 'HS512', subject: m.userId, expiresIn: 600 }),
    'sub not a UUID': jwt.sign({ role: 'USER' }, secret, { subject: 'not-a-uuid', expiresIn: 600 }),
    'sub a number': jwt.sign({ role: 'USER', sub: 42 }, secret, { expiresIn: 600 }),
    'no sub': jwt.sign({ role: 'USER' }, secret, { expiresIn: 600 }),
  };
  for (const [name, token] of Object.entries(tokens)) {
    const res = await client(app.baseUrl, token).get('/v1/merchants/me');
    t.deepEqual(
      [res.status, res.body],
      [401, { code: 'unauthenticated', message: 'Token inválido ou expirado' }],
      name,
    );
  }
  const sixDays = jwt.sign({ role: 'USER', iat: now - 6 * 86400 }, secret, { subject: m.userId, expiresIn: '7d' });
  t.is((await client(app.baseUrl, sixDays).get('/v1/merchants/me')).status, 200, 'a 6-day-old token still works');
});

test('Authorization: the Bearer scheme in any case, with any spaces or tabs; anything malformed is a 401', async (t) => {
  const m = await createMerchant(app);
  const key = await createApiKeyFor(app, m.token);
  for (const credential of [m.token, key]) {
    for (const header of [
      `Bearer  ${credential}`,
      `bearer ${credential}`,
      `BEARER\t${credential}`,
      `Bearer \t ${credential}`,
    ]) {
      const res = await anon().get('/v1/merchants/me', { authorization: header });
      t.is(res.status, 200, JSON.stringify(header));
    }
  }
  const FOUR = [
    'Cabeçalho de autorização ausente',
    'Token inválido ou expirado',
    'Chave de API inválida',
    'Chave de API inativa',
  ];
  const malformed = [
    'Bearer',
    'Bearer a b',
    `Bearer ${m.token} x`,
    'Basic dXNlcjpwYXNz',
    `Token ${m.token}`,
    ',',
    '\t',
  ];
  for (const header of malformed) {
    const res = await anon().get('/v1/merchants/me', { authorization: header });
    t.is(res.status, 401, JSON.stringify(header));
    t.true(FOUR.includes(res.body.message), res.body.message);
  }
  // a second token in the query or the body (RFC 6750's other ways) is refused with the spec's message, not a 400
  const twice = await anon().get(`/v1/merchants/me?access_token=${m.token}`, { authorization: `Bearer ${m.token}` });
  t.deepEqual([twice.status, twice.body], [401, { code: 'unauthenticated', message: 'Token inválido ou expirado' }]);
  const inBody = await client(app.baseUrl, key).post('/v1/merchants/me/pix-keys', { access_token: key });
  t.deepEqual([inBody.status, inBody.body], [401, { code: 'unauthenticated', message: 'Token inválido ou expirado' }]);
  const only = await anon().get(`/v1/merchants/me?access_token=${m.token}`);
  t.deepEqual(
    [only.status, only.body],
    [401, { code: 'unauthenticated', message: 'Cabeçalho de autorização ausente' }],
  );
});

test('API key lifecycle: created once with its value, listed without it, usable, revoked to INACTIVE', async (t) => {
  const m = await createMerchant(app);
  const created = await m.http.post('/v1/api-keys', { name: 'ERP', description: 'integração do ERP' });
  t.is(created.status, 201);
  const key = created.body.apiKey;
  t.deepEqual(Object.keys(key).sort(), ['createdAt', 'description', 'id', 'name', 'status', 'value']);
  t.regex(key.value, /^lk_[A-Za-z0-9_-]{43}$/);
  t.like(key, { name: 'ERP', description: 'integração do ERP', status: 'ACTIVE' });

  const before = await m.http.get('/v1/api-keys');
  t.is(before.status, 200);
  t.is(before.body.apiKeys.length, 1);
  const listed = before.body.apiKeys[0];
  t.false('value' in listed);
  t.false(JSON.stringify(before.body).includes(key.value));
  t.is(listed.prefix, key.value.slice(0, 9));
  t.is(listed.lastUsedAt, null);

  const viaKey = client(app.baseUrl, key.value);
  const me = await viaKey.get('/v1/merchants/me');
  t.is(me.status, 200);
  t.is(me.body.merchant.id, m.merchantId);
  const used = await m.http.get('/v1/api-keys');
  t.truthy(Date.parse(used.body.apiKeys[0].lastUsedAt));

  const del = await m.http.del(`/v1/api-keys/${key.id}`);
  t.is(del.status, 200);
  t.is(typeof del.body.message, 'string');
  const after = await viaKey.get('/v1/merchants/me');
  t.deepEqual([after.status, after.body], [401, { code: 'unauthenticated', message: 'Chave de API inativa' }]);
  const list = await m.http.get('/v1/api-keys');
  t.is(list.body.apiKeys[0].status, 'INACTIVE');
});

test('an unknown lk_ key: 401 Chave de API inválida', async (t) => {
  const res = await client(app.baseUrl, 'lk_' + 'A'.repeat(43)).get('/v1/merchants/me');
  t.deepEqual([res.status, res.body], [401, { code: 'unauthenticated', message: 'Chave de API inválida' }]);
});

test('API keys cannot manage API keys: 403 Esta rota exige login com JWT', async (t) => {
  const m = await createMerchant(app);
  const viaKey = client(app.baseUrl, await createApiKeyFor(app, m.token));
  for (const res of [
    await viaKey.get('/v1/api-keys'),
    await viaKey.post('/v1/api-keys', { name: 'x', description: 'y' }),
  ]) {
    t.deepEqual([res.status, res.body], [403, { code: 'forbidden', message: 'Esta rota exige login com JWT' }]);
  }
  t.is((await m.http.get('/v1/api-keys')).body.apiKeys.length, 1);
});

test('API key creation validates name and description', async (t) => {
  const m = await createMerchant(app);
  const res = await m.http.post('/v1/api-keys', { name: '', description: 'x'.repeat(256) });
  t.is(res.status, 400);
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), ['description', 'name']);
  t.is((await m.http.get('/v1/api-keys')).body.apiKeys.length, 0);
});

test("merchants are isolated: another merchant's key id is 404 and never listed", async (t) => {
  const a = await createMerchant(app);
  const b = await createMerchant(app);
  const keyA = (await a.http.post('/v1/api-keys', { name: 'a', description: 'a' })).body.apiKey;
  t.deepEqual((await b.http.get('/v1/api-keys')).body.apiKeys, []);
  t.is((await b.http.del(`/v1/api-keys/${keyA.id}`)).status, 404);
  t.is((await b.http.del('/v1/api-keys/not-a-uuid')).status, 404);
  t.is((await b.http.del('/v1/api-keys/01a20110-432c-72c1-b552-b2477b52a07d')).status, 404);
  t.is((await client(app.baseUrl, keyA.value).get('/v1/merchants/me')).status, 200);
  t.is((await client(app.baseUrl, keyA.value).get('/v1/merchants/me')).body.merchant.id, a.merchantId);
});

test('a blocked merchant gets 403 Sua conta está inativa with a JWT or an API key', async (t) => {
  const m = await createMerchant(app);
  const key = await createApiKeyFor(app, m.token);
  await app.orm.em
    .fork()
    .getConnection()
    .execute(`update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
  for (const token of [m.token, key]) {
    const res = await client(app.baseUrl, token).get('/v1/merchants/me');
    t.deepEqual([res.status, res.body], [403, { code: 'account_inactive', message: 'Sua conta está inativa' }]);
  }
});
