import test from 'ava';
import { validate as isUuid } from 'uuid';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createApiKeyFor, createMerchant } from './support/factories.ts';
import { client } from './support/client.ts';
import { waitUntil } from './support/receiver.ts';

// POST /v1/sandbox/onboarding: the merchant readies its own sandbox account (KYC, receiving account, a random key).
// Outside the sandbox the route does not exist: test/apipix.e2e.test.ts ("the sandbox routes do not exist with a real
// PSP") asks it there.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);

const accountOf = async (merchantId: string) =>
  (
    await sql<{ acquirer_account_id: string | null }>('select acquirer_account_id from merchants where id = ?', [
      merchantId,
    ])
  )[0].acquirer_account_id;

const keyEvents = async (merchantId: string) =>
  (
    await sql<{ n: string }>("select count(*) as n from events where merchant_id = ? and type = 'pixkey.updated'", [
      merchantId,
    ])
  )[0].n;

test('a new merchant is ready to take and be paid a charge after it; a second call changes nothing', async (t) => {
  const m = await createMerchant(app);
  t.is((await m.http.post('/v1/charges', { amount: 1000, description: 'antes' })).status, 403, 'not ready before');

  const first = await m.http.post('/v1/sandbox/onboarding');
  t.is(first.status, 200, JSON.stringify(first.body));
  t.like(first.body.merchant, { id: m.merchantId, kycStatus: 'APPROVED', acquirerConfigured: true, status: 'ACTIVE' });
  t.deepEqual(first.body.merchant, (await m.http.get('/v1/merchants/me')).body.merchant, 'the GET /me shape');
  const account = await accountOf(m.merchantId);
  t.regex(account ?? '', /^sandbox-[0-9a-f]{12}$/);
  const keys = (await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys;
  t.is(keys.length, 1);
  t.like(keys[0], { type: 'CHAVE_ALEATORIA', status: 'ACTIVE' });
  t.true(isUuid(keys[0].key));
  t.is(await keyEvents(m.merchantId), '1', 'pixkey.updated recorded, as the pix-keys route does');

  const again = await m.http.post('/v1/sandbox/onboarding');
  t.is(again.status, 200);
  t.deepEqual(again.body, first.body);
  t.is(await accountOf(m.merchantId), account, 'the same account');
  t.deepEqual((await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys, keys, 'no second key');

  const charge = await m.http.post('/v1/charges', { amount: 1000, description: 'depois' });
  t.is(charge.status, 201, JSON.stringify(charge.body));
  t.is((await m.http.post(`/v1/sandbox/charges/${charge.body.charge.id}/pay`)).status, 202);
  const stopWorker = await startBackground(app, 'worker');
  try {
    await waitUntil(
      async () => (await m.http.get(`/v1/charges/${charge.body.charge.id}`)).body.charge.status === 'PAID',
      15_000,
      'charge PAID',
    );
  } finally {
    await stopWorker();
  }
});

test('calls at the same time make one account and one key', async (t) => {
  const m = await createMerchant(app);
  const replies = await Promise.all(Array.from({ length: 6 }, () => m.http.post('/v1/sandbox/onboarding')));
  t.deepEqual(
    replies.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
  );
  const account = await accountOf(m.merchantId);
  t.truthy(account);
  for (const r of replies) t.deepEqual(r.body, replies[0].body);
  const keys = await sql('select id from pix_keys where merchant_id = ?', [m.merchantId]);
  t.is(keys.length, 1, 'one key');
  t.is(await keyEvents(m.merchantId), '1');
  t.is(await accountOf(m.merchantId), account, 'one account: the first is never replaced');
});

test('what is already done stays: an account and an ACTIVE key of any type are kept', async (t) => {
  const m = await createMerchant(app, { kyc: 'PENDING', acquirer: true, pixKey: true });
  const account = await accountOf(m.merchantId);
  const before = (await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys;
  const res = await m.http.post('/v1/sandbox/onboarding');
  t.is(res.status, 200);
  t.is(res.body.merchant.kycStatus, 'APPROVED');
  t.is(await accountOf(m.merchantId), account);
  t.deepEqual((await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys, before);

  // an INACTIVE key does not count: a random one is created beside it
  const other = await createMerchant(app, { kyc: 'APPROVED', acquirer: true, pixKey: true });
  const [old] = (await other.http.get('/v1/merchants/me/pix-keys')).body.pixKeys;
  t.is((await other.http.del(`/v1/merchants/me/pix-keys/${old.id}`)).status, 200);
  t.is((await other.http.post('/v1/sandbox/onboarding')).status, 200);
  const keys = (await other.http.get('/v1/merchants/me/pix-keys')).body.pixKeys;
  t.deepEqual(keys.map((k: { type: string; status: string }) => `${k.type} ${k.status}`).sort(), [
    'CHAVE_ALEATORIA ACTIVE',
    'EMAIL INACTIVE',
  ]);
});

test('a KYC the operator rejected stays rejected (422) and nothing is changed', async (t) => {
  const m = await createMerchant(app, { kyc: 'REJECTED' });
  const res = await m.http.post('/v1/sandbox/onboarding');
  t.is(res.status, 422);
  t.is(
    res.body.message,
    'O KYC desta conta foi reprovado pela operação: a ativação da conta de testes não o aprova de novo',
  );
  t.is((await m.http.get('/v1/merchants/me')).body.merchant.kycStatus, 'REJECTED');
  t.is(await accountOf(m.merchantId), null);
  t.is((await sql('select id from pix_keys where merchant_id = ?', [m.merchantId])).length, 0);
});

test('JWT only; a blocked merchant and no credential are refused', async (t) => {
  const m = await createMerchant(app);
  const apiKey = await createApiKeyFor(app, m.token);
  const byKey = await client(app.baseUrl, apiKey).post('/v1/sandbox/onboarding');
  t.is(byKey.status, 403);
  t.is(byKey.body.message, 'Esta rota exige login com JWT');
  t.is((await m.http.get('/v1/merchants/me')).body.merchant.kycStatus, 'PENDING', 'nothing done');

  const blocked = await createMerchant(app, { status: 'BLOCKED' });
  const res = await blocked.http.post('/v1/sandbox/onboarding');
  t.is(res.status, 403);
  t.is(res.body.message, 'Sua conta está inativa');
  t.is(await accountOf(blocked.merchantId), null);

  t.is((await client(app.baseUrl).post('/v1/sandbox/onboarding')).status, 401);
});

test('with credentials kept in memory, the next request after it can charge at once', async (t) => {
  const cached = await startTestApp({ PRINCIPAL_CACHE_MS: '600000' });
  t.teardown(() => cached.close());
  const m = await createMerchant(cached);
  const http = client(cached.baseUrl, m.token);
  t.is((await http.post('/v1/charges', { amount: 100, description: 'antes' })).status, 403, 'kept: KYC pending');
  t.is((await http.post('/v1/sandbox/onboarding')).status, 200);
  t.is((await http.post('/v1/charges', { amount: 100, description: 'depois' })).status, 201);
});
