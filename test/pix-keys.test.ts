import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app.ts';
import { cpf, createMerchant } from './support/factories.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('each key type is validated by its format; valid keys are stored ACTIVE in canonical form', async (t) => {
  const m = await createMerchant(app);
  const doc = cpf();
  const valid: [string, string, string][] = [
    ['CPF', `${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`, doc],
    ['CNPJ', '11222333000181', '11222333000181'],
    ['EMAIL', 'Financeiro@Loja.com.br', 'financeiro@loja.com.br'],
    ['PHONE', '+5511987654321', '+5511987654321'],
    ['PHONE', '+551133334444', '+551133334444'],
    ['CHAVE_ALEATORIA', '123E4567-E89B-42D3-A456-426614174000', '123e4567-e89b-42d3-a456-426614174000'],
  ];
  for (const [type, key, stored] of valid) {
    const res = await m.http.post('/v1/merchants/me/pix-keys', { type, key });
    t.is(res.status, 201, `${type} ${key}: ${JSON.stringify(res.body)}`);
    t.like(res.body.pixKey, { type, key: stored, status: 'ACTIVE' });
    t.deepEqual(Object.keys(res.body.pixKey).sort(), ['createdAt', 'id', 'key', 'status', 'type']);
  }
  const invalid: [string, unknown][] = [
    ['CPF', '52998224724'],
    ['CPF', '11111111111'],
    ['CNPJ', '11222333000182'],
    ['EMAIL', 'not-an-email'],
    ['PHONE', '11987654321'],
    ['PHONE', '+5511987'],
    ['PHONE', '+14155550100'],
    ['CHAVE_ALEATORIA', 'abc'],
    ['CPF', 52998224725],
    ['BITCOIN', 'x'],
  ];
  for (const [type, key] of invalid) {
    const res = await m.http.post('/v1/merchants/me/pix-keys', { type, key });
    t.is(res.status, 400, `${type} ${String(key)}`);
    t.true(Array.isArray(res.body.errors));
  }
  t.is((await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys.length, valid.length);
});

test('a duplicate active key is 409', async (t) => {
  const m = await createMerchant(app);
  const key = { type: 'CHAVE_ALEATORIA', key: randomUUID() };
  t.is((await m.http.post('/v1/merchants/me/pix-keys', key)).status, 201);
  t.is((await m.http.post('/v1/merchants/me/pix-keys', key)).status, 409);
});

test('delete makes the key INACTIVE; create and delete emit pixkey.updated; others get 404', async (t) => {
  const m = await createMerchant(app);
  const created = (await m.http.post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: 'a@b.com' })).body.pixKey;
  const other = await createMerchant(app);
  t.is((await other.http.del(`/v1/merchants/me/pix-keys/${created.id}`)).status, 404);
  t.deepEqual((await other.http.get('/v1/merchants/me/pix-keys')).body.pixKeys, []);
  const del = await m.http.del(`/v1/merchants/me/pix-keys/${created.id}`);
  t.is(del.status, 200);
  t.is(typeof del.body.message, 'string');
  const [listed] = (await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys;
  t.like(listed, { id: created.id, status: 'INACTIVE' });
  const events = await app.orm.em
    .fork()
    .execute(`select type, data from events where merchant_id = ? order by id`, [m.merchantId]);
  t.deepEqual(
    events.map((e) => [e.type, e.data.id, e.data.status]),
    [
      ['pixkey.updated', created.id, 'ACTIVE'],
      ['pixkey.updated', created.id, 'INACTIVE'],
    ],
  );
  t.is((await m.http.del('/v1/merchants/me/pix-keys/nope')).status, 404);
});
