import test from 'ava';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createApiKeyFor, createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { decodeQrDataUrl } from './support/qr.ts';
import { parseBrCode } from '../src/pix/brcode.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: 'https://pix.example.com.br' });
});
test.after.always(async () => {
  await app?.close();
});

const countCharges = async (merchantId: string) =>
  Number(
    (await app.orm.em.fork().execute('select count(*) as n from charges where merchant_id = ?', [merchantId]))[0].n,
  );

test('a charge needs KYC, an acquirer account and an active PIX key: 403 naming what is missing', async (t) => {
  const body = { amount: 100, description: 'x' };
  const none = await createMerchant(app);
  const r1 = await none.http.post('/v1/charges', body);
  t.deepEqual(
    [r1.status, r1.body],
    [
      403,
      {
        code: 'prerequisites_missing',
        message: 'KYC não aprovado; Conta recebedora não configurada; Nenhuma chave PIX ativa',
      },
    ],
  );
  const noAcquirer = await createMerchant(app, { kyc: 'APPROVED', pixKey: true });
  t.deepEqual((await noAcquirer.http.post('/v1/charges', body)).body, {
    code: 'prerequisites_missing',
    message: 'Conta recebedora não configurada',
  });
  const noKey = await createMerchant(app, { kyc: 'APPROVED', acquirer: true });
  t.deepEqual((await noKey.http.post('/v1/charges', body)).body, {
    code: 'prerequisites_missing',
    message: 'Nenhuma chave PIX ativa',
  });
  // with a customer too, and no customer row is left behind
  const withCustomer = await noKey.http.post('/v1/charges', { ...body, customer: { name: 'Maria', document: cpf() } });
  t.deepEqual(
    [withCustomer.status, withCustomer.body],
    [403, { code: 'prerequisites_missing', message: 'Nenhuma chave PIX ativa' }],
  );
  const customers = await app.orm.em
    .fork()
    .execute('select count(*) as n from customers where merchant_id = ?', [noKey.merchantId]);
  t.is(Number(customers[0].n), 0);
  const rejected = await createMerchant(app, { kyc: 'REJECTED', acquirer: true, pixKey: true });
  t.deepEqual((await rejected.http.post('/v1/charges', body)).body, {
    code: 'prerequisites_missing',
    message: 'KYC não aprovado',
  });
  // deleting the only key takes the merchant back to 403
  const m = await createOnboardedMerchant(app);
  const [key] = (await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys;
  await m.http.del(`/v1/merchants/me/pix-keys/${key.id}`);
  t.is((await m.http.post('/v1/charges', body)).status, 403);
  for (const x of [none, noAcquirer, noKey, rejected, m]) t.is(await countCharges(x.merchantId), 0);
});

test('POST /v1/charges returns a PENDING charge with a valid dynamic BR Code and a QR image of exactly that payload', async (t) => {
  const m = await createOnboardedMerchant(app);
  const res = await m.http.post('/v1/charges', { amount: 1050, description: 'Pedido #42' });
  t.is(res.status, 201);
  const c = res.body.charge;
  for (const field of ['id', 'txid', 'qrCode', 'imageBase64', 'amount', 'status', 'expiresIn', 'customer'])
    t.true(field in c, field);
  t.like(c, { amount: 1050, status: 'PENDING', expiresIn: 86400, customer: null });
  t.regex(c.txid, /^[a-zA-Z0-9]{26,35}$/);
  t.regex(c.imageBase64, /^data:image\/png;base64,/);
  t.is(decodeQrDataUrl(c.imageBase64), c.qrCode);

  const parsed = parseBrCode(c.qrCode);
  t.true(parsed.crcValid);
  t.like(parsed.fields, {
    '00': '01',
    '01': '12',
    '52': '0000',
    '53': '986',
    '54': '10.50',
    '58': 'BR',
    '59': 'Loja Teste',
    '60': 'SAO PAULO',
  });
  t.is(parsed.merchantAccount['00'], 'br.gov.bcb.pix');
  t.is(parsed.merchantAccount['25'], `pix.example.com.br/pix/qr/${c.txid}`);
  t.is(parsed.additionalData['05'], '***');
  t.is(Date.parse(c.expiresAt) - Date.parse(c.createdAt), 86400 * 1000);
});

test('the payload location serves the charge (sandbox)', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = (await m.http.post('/v1/charges', { amount: 2599, description: 'Camiseta', expiresIn: 3600 })).body.charge;
  const loc = await client(app.baseUrl).get(`/pix/qr/${c.txid}`);
  t.is(loc.status, 200);
  t.like(loc.body, { txid: c.txid, status: 'ATIVA', valor: { original: '25.99' }, calendario: { expiracao: 3600 } });
  t.is((await client(app.baseUrl).get('/pix/qr/unknown')).status, 404);
});

test('bidi controls never reach the payer: stripped from description and payer name, the location cut whole', async (t) => {
  const m = await createOnboardedMerchant(app);
  const res = await m.http.post('/v1/charges', {
    amount: 990,
    description: ' \u202EPedido\u202C 42 \u2067(reembolso)\u2069 ',
    customer: { name: '\u200FMaria\u061C Silva', document: cpf() },
  });
  t.is(res.status, 201);
  t.is(res.body.charge.description, 'Pedido 42 (reembolso)');
  t.is(res.body.charge.customer.name, 'Maria Silva');
  const onlyControls = await m.http.post('/v1/charges', { amount: 990, description: '\u202E\u202C' });
  t.is(onlyControls.status, 400);
  t.is(onlyControls.body.errors[0].field, 'description');

  // a row stored before the rule: the payload location (what the payer's bank shows) still strips and cuts whole
  const c = res.body.charge;
  const stored = `\u202E${'a'.repeat(139)}😀😀`;
  await app.orm.em.fork().execute('update charges set description = ? where id = ?', [stored, c.id]);
  const loc = await client(app.baseUrl).get(`/pix/qr/${c.txid}`);
  t.is(loc.body.solicitacaoPagador, `${'a'.repeat(139)}😀`);
});

test('customer and tracking are stored; customers are reused per merchant by document', async (t) => {
  const m = await createOnboardedMerchant(app);
  const doc = cpf();
  const tracking = { utm_source: 'instagram', utm_campaign: 'black-friday', sck: 'abc' };
  const first = await m.http.post('/v1/charges', {
    amount: 500,
    description: 'a',
    customer: { name: 'Maria Silva', document: doc, email: 'maria@example.com' },
    tracking,
  });
  t.is(first.status, 201);
  t.deepEqual(Object.keys(first.body.charge.customer).sort(), ['document', 'id', 'name']);
  t.like(first.body.charge.customer, { name: 'Maria Silva', document: doc });
  const second = await m.http.post('/v1/charges', {
    amount: 700,
    description: 'b',
    customer: { name: 'Maria S.', document: doc },
  });
  t.is(second.body.charge.customer.id, first.body.charge.customer.id);
  const got = await m.http.get(`/v1/charges/${first.body.charge.id}`);
  t.deepEqual(got.body.charge.tracking, tracking);
  t.is(decodeQrDataUrl(got.body.charge.imageBase64), got.body.charge.qrCode);
  const other = await createOnboardedMerchant(app);
  const theirs = await other.http.post('/v1/charges', {
    amount: 700,
    description: 'c',
    customer: { name: 'Maria', document: doc },
  });
  t.not(theirs.body.charge.customer.id, first.body.charge.customer.id);
});

test('every rule of section 8 is enforced with 400 field errors and nothing is created', async (t) => {
  const m = await createOnboardedMerchant(app);
  const bad: [object, string][] = [
    [{ description: 'x' }, 'amount'],
    [{ amount: 0, description: 'x' }, 'amount'],
    [{ amount: '100', description: 'x' }, 'amount'],
    [{ amount: 1.5, description: 'x' }, 'amount'],
    [{ amount: 100 }, 'description'],
    [{ amount: 100, description: 'x'.repeat(256) }, 'description'],
    [{ amount: 100, description: 'x', expiresIn: 59 }, 'expiresIn'],
    [{ amount: 100, description: 'x', expiresIn: 604801 }, 'expiresIn'],
    [{ amount: 100, description: 'x', expiresIn: '3600' }, 'expiresIn'],
    [{ amount: 100, description: 'x', customer: 'Maria' }, 'customer'],
    [{ amount: 100, description: 'x', customer: { document: cpf() } }, 'customer.name'],
    [{ amount: 100, description: 'x', customer: { name: 'Maria', document: '12345678900' } }, 'customer.document'],
    [{ amount: 100, description: 'x', customer: { name: 'Maria' } }, 'customer.document'],
    [{ amount: 100, description: 'x', customer: { name: 'Maria', document: 52998224725 } }, 'customer.document'],
    [{ amount: 100, description: 'x', tracking: { utm_source: 'a', evil: 'b' } }, 'tracking'],
    [{ amount: 100, description: 'x', tracking: { utm_source: 'x'.repeat(256) } }, 'tracking'],
  ];
  for (const [body, field] of bad) {
    const res = await m.http.post('/v1/charges', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(
      res.body.errors.some((e: { field: string }) => e.field === field),
      `${field}: ${JSON.stringify(res.body)}`,
    );
  }
  const longKey = await m.http.post(
    '/v1/charges',
    { amount: 100, description: 'x' },
    { 'x-idempotency-key': 'k'.repeat(65) },
  );
  t.is(longKey.status, 400);
  t.is(await countCharges(m.merchantId), 0);
  const edges = [
    await m.http.post('/v1/charges', { amount: 1, description: 'x'.repeat(255), expiresIn: 60 }),
    await m.http.post('/v1/charges', { amount: 100, description: 'x', expiresIn: 604800 }),
  ];
  t.deepEqual(
    edges.map((r) => r.status),
    [201, 201],
  );
});

test('idempotency: a replay returns the original (200, idempotent-replayed), another body is 409', async (t) => {
  const m = await createOnboardedMerchant(app);
  const key = { 'x-idempotency-key': 'order-1001' };
  const first = await m.http.post('/v1/charges', { amount: 990, description: 'Pedido 1001' }, key);
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  const replay = await m.http.post('/v1/charges', { description: 'Pedido 1001', amount: 990 }, key);
  t.is(replay.status, 200);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, first.body);
  const conflict = await m.http.post('/v1/charges', { amount: 991, description: 'Pedido 1001' }, key);
  t.is(conflict.status, 409);
  t.is(typeof conflict.body.message, 'string');
  // keys are per merchant
  const other = await createOnboardedMerchant(app);
  t.is((await other.http.post('/v1/charges', { amount: 990, description: 'Pedido 1001' }, key)).status, 201);
  t.is(await countCharges(m.merchantId), 1);
});

test('concurrent requests with one idempotency key create exactly one charge', async (t) => {
  const m = await createOnboardedMerchant(app);
  const apiKey = await createApiKeyFor(app, m.token);
  const http = client(app.baseUrl, apiKey);
  const results = await Promise.all(
    Array.from({ length: 12 }, () =>
      http.post('/v1/charges', { amount: 4200, description: 'corrida' }, { 'x-idempotency-key': 'same-key' }),
    ),
  );
  t.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  t.is(new Set(results.map((r) => r.body.charge.id)).size, 1);
  t.is(await countCharges(m.merchantId), 1);
});

test('GET /v1/charges lists newest first with page, limit, total and a status filter; another merchant sees nothing', async (t) => {
  const m = await createOnboardedMerchant(app);
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++)
    ids.push((await m.http.post('/v1/charges', { amount: i * 100, description: `c${i}` })).body.charge.id);
  await app.orm.em.fork().execute(`update charges set status = 'PAID' where id = ?`, [ids[1]]);
  const page1 = await m.http.get('/v1/charges?limit=2');
  t.is(page1.status, 200);
  t.like(page1.body, { page: 1, limit: 2, total: 5 });
  t.deepEqual(
    page1.body.charges.map((c: { id: string }) => c.id),
    [ids[4], ids[3]],
  );
  t.false('imageBase64' in page1.body.charges[0]);
  const page3 = await m.http.get('/v1/charges?limit=2&page=3');
  t.deepEqual(
    page3.body.charges.map((c: { id: string }) => c.id),
    [ids[0]],
  );
  const paid = await m.http.get('/v1/charges?status=PAID');
  t.like(paid.body, { page: 1, limit: 20, total: 1 });
  t.is(paid.body.charges[0].id, ids[1]);
  for (const q of [
    'page=0',
    'limit=0',
    'limit=101',
    'page=abc',
    'status=LOST',
    'page=1&page=2',
    'limit=1&limit=2',
    'status=PAID&status=PENDING',
  ])
    t.is((await m.http.get(`/v1/charges?${q}`)).status, 400, q);

  const other = await createOnboardedMerchant(app);
  t.like((await other.http.get('/v1/charges')).body, { total: 0, charges: [] });
  t.is((await other.http.get(`/v1/charges/${ids[0]}`)).status, 404);
  t.is((await other.http.get('/v1/charges/not-a-uuid')).status, 404);
  t.is((await m.http.get(`/v1/charges/${ids[0]}`)).body.charge.id, ids[0]);
});

test('charges work with an API key too, and need a credential', async (t) => {
  const m = await createOnboardedMerchant(app);
  const http = client(app.baseUrl, await createApiKeyFor(app, m.token));
  t.is((await http.post('/v1/charges', { amount: 100, description: 'via key' })).status, 201);
  t.is((await http.get('/v1/charges')).body.total, 1);
  t.deepEqual((await client(app.baseUrl).get('/v1/charges')).body, {
    code: 'unauthenticated',
    message: 'Cabeçalho de autorização ausente',
  });
});
