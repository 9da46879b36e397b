import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createApiKeyFor, createMerchant } from './support/factories.ts';
import { fund, ledgerKinds, sql, userWithoutMerchant } from './withdrawals.helpers.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const PATH = '/v1/merchants/me/withdrawals';
const valid = { amount: 1000, pixKey: 'someone@example.com', pixKeyType: 'EMAIL' };

async function fundedMerchant(amount = 100_000) {
  const m = await createMerchant(app);
  await fund(app, m.merchantId, amount);
  return m;
}

const balance = async (m: { http: ReturnType<typeof client> }) =>
  (await m.http.get('/v1/merchants/me/balance')).body.available as number;

test('POST creates a PROCESSING withdrawal, debits the balance and enqueues its send job, all at once', async (t) => {
  const m = await fundedMerchant(5000);
  const res = await m.http.post(PATH, {
    amount: 1234,
    pixKey: 'Pessoa@Example.com',
    pixKeyType: 'EMAIL',
    description: 'Saque semanal',
  });
  t.is(res.status, 201);
  const w = res.body.withdrawal;
  t.deepEqual(Object.keys(res.body), ['withdrawal']);
  t.regex(w.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/); // UUID v7
  t.deepEqual(w, {
    id: w.id,
    amount: 1234,
    description: 'Saque semanal',
    status: 'PROCESSING',
    batchId: null,
    pixKey: 'pessoa@example.com',
    pixKeyType: 'EMAIL',
    createdAt: w.createdAt,
    updatedAt: w.createdAt,
    completedAt: null,
    failedAt: null,
    returnedAt: null,
    failureReason: null,
  });
  t.true(Math.abs(Date.parse(w.createdAt) - Date.now()) < 60_000);
  t.is(await balance(m), 5000 - 1234);
  t.deepEqual(await ledgerKinds(app, w.id), ['withdrawal']);
  const jobs = await sql(
    app,
    `select state from pgboss.job where name = 'withdrawal.send' and data->>'withdrawalId' = ?`,
    [w.id],
  );
  t.is(jobs.length, 1);
});

test('insufficient funds: 422 Saldo insuficiente and nothing is created (no row, no job, no ledger, balance kept)', async (t) => {
  const m = await fundedMerchant(1000);
  const res = await m.http.post(PATH, { ...valid, amount: 1001 }, { 'x-idempotency-key': 'too-much' });
  t.is(res.status, 422);
  t.deepEqual(res.body, { code: 'insufficient_balance', message: 'Saldo insuficiente' });
  t.deepEqual(await sql(app, 'select id from withdrawals where merchant_id = ?', [m.merchantId]), []);
  t.deepEqual(
    await sql(
      app,
      `select id from pgboss.job where name = 'withdrawal.send' and data->>'withdrawalId' in (select id::text from withdrawals where merchant_id = ?)`,
      [m.merchantId],
    ),
    [],
  );
  t.is(await balance(m), 1000);
  t.is((await m.http.get(PATH)).body.total, 0);
  // the whole balance can be withdrawn, to the centavo
  t.is((await m.http.post(PATH, { ...valid, amount: 1000 })).status, 201);
  t.is(await balance(m), 0);
  t.is((await m.http.post(PATH, { ...valid, amount: 1 })).status, 422);
});

test('a merchant that never had a balance gets 422 too', async (t) => {
  const m = await createMerchant(app);
  const res = await m.http.post(PATH, valid);
  t.is(res.status, 422);
  t.is(res.body.message, 'Saldo insuficiente');
});

test('validation: each field answers 400 with { message, errors: [{ field, message }] }', async (t) => {
  const m = await fundedMerchant();
  const cases: [Record<string, unknown>, string][] = [
    [{ ...valid, amount: 0 }, 'amount'],
    [{ ...valid, amount: -5 }, 'amount'],
    [{ ...valid, amount: 10.5 }, 'amount'],
    [{ ...valid, amount: '100' }, 'amount'],
    [{ ...valid, amount: null }, 'amount'],
    [{ ...valid, amount: 2_147_483_648 }, 'amount'],
    [{ pixKey: valid.pixKey, pixKeyType: 'EMAIL' }, 'amount'],
    [{ ...valid, pixKeyType: 'IBAN' }, 'pixKeyType'],
    [{ ...valid, pixKeyType: 'email' }, 'pixKeyType'],
    [{ amount: 10, pixKeyType: 'EMAIL' }, 'pixKey'],
    [{ ...valid, pixKey: 42 }, 'pixKey'],
    [{ ...valid, description: 'x'.repeat(256) }, 'description'],
    [{ ...valid, description: 12 }, 'description'],
  ];
  for (const [body, field] of cases) {
    const res = await m.http.post(PATH, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(typeof res.body.message, 'string');
    t.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      [field],
      JSON.stringify(body),
    );
  }
  const empty = await m.http.post(PATH, {});
  t.deepEqual(empty.body.errors.map((e: { field: string }) => e.field).sort(), ['amount', 'pixKey', 'pixKeyType']);
  const longKey = await m.http.post(PATH, valid, { 'x-idempotency-key': 'k'.repeat(65) });
  t.is(longKey.status, 400);
  t.deepEqual(
    longKey.body.errors.map((e: { field: string }) => e.field),
    ['x-idempotency-key'],
  );
  t.is(await balance(m), 100_000, 'no validation failure touched the balance');
});

test('pixKey must match pixKeyType (CPF/CNPJ check digits, e-mail, +55 phone, UUID)', async (t) => {
  const m = await fundedMerchant();
  const wrong: [string, string][] = [
    ['CPF', '12345678900'],
    ['CPF', '1234567890'],
    ['CPF', 'a@b.com'],
    ['CNPJ', '11222333000100'],
    ['CNPJ', '112223330001'],
    ['EMAIL', 'not-an-email'],
    ['EMAIL', `${'a'.repeat(70)}@example.com`],
    ['PHONE', '11987654321'],
    ['PHONE', '+55119876'],
    ['PHONE', '+1415555123456'],
    ['CHAVE_ALEATORIA', 'abc'],
    ['CHAVE_ALEATORIA', '12345678900'],
  ];
  for (const [pixKeyType, pixKey] of wrong) {
    const res = await m.http.post(PATH, { amount: 1, pixKey, pixKeyType });
    t.is(res.status, 400, `${pixKeyType} ${pixKey}`);
    t.is(res.body.errors[0].field, 'pixKey');
    t.regex(res.body.errors[0].message, /pixKey deve ser/);
  }
  const uuid = randomUUID();
  const right: [string, string, string][] = [
    ['CPF', '529.982.247-25', '52998224725'],
    ['CPF', cpf(), ''],
    ['CNPJ', '11.222.333/0001-81', '11222333000181'],
    ['EMAIL', 'Fulano@Example.COM', 'fulano@example.com'],
    ['PHONE', '+5511987654321', '+5511987654321'],
    ['PHONE', '+551133334444', '+551133334444'],
    ['CHAVE_ALEATORIA', uuid.toUpperCase(), uuid],
  ];
  for (const [pixKeyType, pixKey, stored] of right) {
    const res = await m.http.post(PATH, { amount: 1, pixKey, pixKeyType });
    t.is(res.status, 201, `${pixKeyType} ${pixKey}: ${JSON.stringify(res.body)}`);
    t.is(res.body.withdrawal.pixKey, stored || pixKey, 'stored in its DICT form');
    t.is(res.body.withdrawal.pixKeyType, pixKeyType);
  }
});

test('description is optional (null when absent) and accepts 255 characters', async (t) => {
  const m = await fundedMerchant();
  t.is((await m.http.post(PATH, valid)).body.withdrawal.description, null);
  t.is((await m.http.post(PATH, { ...valid, description: null })).body.withdrawal.description, null);
  t.is(
    (await m.http.post(PATH, { ...valid, description: 'd'.repeat(255) })).body.withdrawal.description,
    'd'.repeat(255),
  );
});

test('x-idempotency-key: a replay is 200 with the original body and idempotent-replayed; another body is 409', async (t) => {
  const m = await fundedMerchant(10_000);
  const key = 'saque-2026-11-22-0001';
  const first = await m.http.post(PATH, { ...valid, description: 'um' }, { 'x-idempotency-key': key });
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  const replay = await m.http.post(
    PATH,
    { description: 'um', pixKeyType: 'EMAIL', pixKey: valid.pixKey, amount: valid.amount },
    { 'x-idempotency-key': key },
  );
  t.is(replay.status, 200);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, first.body);
  t.is(await balance(m), 10_000 - valid.amount, 'debited once');

  const conflict = await m.http.post(PATH, { ...valid, amount: 999, description: 'um' }, { 'x-idempotency-key': key });
  t.is(conflict.status, 409);
  t.is(typeof conflict.body.message, 'string');
  t.is(await balance(m), 10_000 - valid.amount);

  // keys are per merchant: another merchant's identical key is its own withdrawal
  const other = await fundedMerchant(10_000);
  const theirs = await other.http.post(PATH, { ...valid, description: 'um' }, { 'x-idempotency-key': key });
  t.is(theirs.status, 201);
  t.not(theirs.body.withdrawal.id, first.body.withdrawal.id);
});

test('GET lists newest first with page/limit/total; pages past the end are empty', async (t) => {
  const m = await fundedMerchant();
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) ids.push((await m.http.post(PATH, { ...valid, amount: i + 1 })).body.withdrawal.id);
  const newestFirst = [...ids].reverse();

  const first = await m.http.get(PATH);
  t.is(first.status, 200);
  t.deepEqual(Object.keys(first.body), ['page', 'limit', 'total', 'withdrawals']);
  t.like(first.body, { page: 1, limit: 20, total: 25 });
  t.deepEqual(
    first.body.withdrawals.map((w: { id: string }) => w.id),
    newestFirst.slice(0, 20),
  );
  t.like(first.body.withdrawals[0], {
    amount: 25,
    status: 'PROCESSING',
    pixKey: valid.pixKey,
    pixKeyType: 'EMAIL',
    batchId: null,
    description: null,
  });

  const second = await m.http.get(`${PATH}?page=2&limit=20`);
  t.deepEqual(
    second.body.withdrawals.map((w: { id: string }) => w.id),
    newestFirst.slice(20),
  );
  const small = await m.http.get(`${PATH}?page=3&limit=7`);
  t.like(small.body, { page: 3, limit: 7, total: 25 });
  t.deepEqual(
    small.body.withdrawals.map((w: { id: string }) => w.id),
    newestFirst.slice(14, 21),
  );
  t.is((await m.http.get(`${PATH}?limit=100`)).body.withdrawals.length, 25);
  t.deepEqual((await m.http.get(`${PATH}?page=4`)).body, { page: 4, limit: 20, total: 25, withdrawals: [] });
  t.deepEqual((await m.http.get(`${PATH}?page=2000000000`)).body.withdrawals, []);

  // another merchant sees none of them
  t.like((await (await createMerchant(app)).http.get(PATH)).body, { total: 0, withdrawals: [] });
});

test('GET orders equal createdAt by id, newest id first', async (t) => {
  const m = await fundedMerchant();
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await m.http.post(PATH, valid)).body.withdrawal.id);
  await sql(app, `update withdrawals set created_at = '2026-01-01T00:00:00Z' where merchant_id = ?`, [m.merchantId]);
  const res = await m.http.get(PATH);
  t.deepEqual(
    res.body.withdrawals.map((w: { id: string }) => w.id),
    [...ids].sort().reverse(),
  );
});

test('GET page and limit outside their rules are 400', async (t) => {
  const m = await createMerchant(app);
  for (const q of [
    'page=0',
    'page=-1',
    'page=abc',
    'page=1.5',
    'page=',
    'limit=0',
    'limit=101',
    'limit=-3',
    'limit=2.5',
    'limit=x',
    'page=1&page=2',
    'limit=10&limit=20',
  ]) {
    const res = await m.http.get(`${PATH}?${q}`);
    t.is(res.status, 400, q);
    t.is(res.body.errors[0].field, q.startsWith('page') ? 'page' : 'limit', q);
  }
  for (const q of ['page=1', 'limit=1', 'limit=100', 'page=1&limit=100'])
    t.is((await m.http.get(`${PATH}?${q}`)).status, 200, q);
});

test('a user without a merchant: 404 Merchant não encontrado on the listing and on creation', async (t) => {
  const http = client(app.baseUrl, await userWithoutMerchant(app));
  const list = await http.get(PATH);
  t.is(list.status, 404);
  t.deepEqual(list.body, { code: 'not_found', message: 'Merchant não encontrado' });
  const create = await http.post(PATH, valid);
  t.is(create.status, 404);
  t.deepEqual(create.body, { code: 'not_found', message: 'Merchant não encontrado' });
});

test('authentication: no header is 401; an API key works like the JWT', async (t) => {
  const anon = await client(app.baseUrl).get(PATH);
  t.is(anon.status, 401);
  t.deepEqual(anon.body, { code: 'unauthenticated', message: 'Cabeçalho de autorização ausente' });
  const m = await fundedMerchant(5000);
  const withKey = client(app.baseUrl, await createApiKeyFor(app, m.token));
  const created = await withKey.post(PATH, valid);
  t.is(created.status, 201);
  t.is((await withKey.get(PATH)).body.withdrawals[0].id, created.body.withdrawal.id);
});

test('GET /:id returns one withdrawal of the merchant; other ids are 404', async (t) => {
  const m = await fundedMerchant();
  const w = (await m.http.post(PATH, valid)).body.withdrawal;
  t.deepEqual((await m.http.get(`${PATH}/${w.id}`)).body, { withdrawal: w });
  const stranger = await createMerchant(app);
  t.is((await stranger.http.get(`${PATH}/${w.id}`)).status, 404);
  t.is((await m.http.get(`${PATH}/${randomUUID()}`)).status, 404);
  t.is((await m.http.get(`${PATH}/not-a-uuid`)).status, 404);
});

test('total comes from the counter and always equals the rows', async (t) => {
  const m = await fundedMerchant();
  for (let i = 0; i < 5; i++) await m.http.post(PATH, valid);
  const [{ n }] = await sql<{ n: string }>(app, 'select count(*) as n from withdrawals where merchant_id = ?', [
    m.merchantId,
  ]);
  t.is((await m.http.get(PATH)).body.total, Number(n));
  t.is(Number(n), 5);
});
