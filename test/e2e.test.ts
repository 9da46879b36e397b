import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { decodeQrDataUrl } from './support/qr.ts';
import { main as ops } from '../src/ops.ts';

// The whole service as a merchant and an operator use it: API, worker and webhook daemon against one database.
let app: TestApp;
let receiver: Receiver;
const stops: (() => Promise<void>)[] = [];
test.before(async () => {
  app = await startTestApp();
  stops.push(await startBackground(app, 'worker'), await startBackground(app, 'webhooks'));
  receiver = await startReceiver();
});
test.after.always(async () => {
  for (const stop of stops) await stop();
  await receiver?.close();
  await app?.close();
});

async function operator(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await ops(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env: { DATABASE_URL: app.databaseUrl },
  });
  if (code !== 0) throw new Error(`ops ${argv.join(' ')}: ${[...out, ...err].join('\n')}`);
  return JSON.parse(out.join('\n'));
}

test('register, onboard, charge, scan, pay in sandbox, receive a verified charge.paid, see the net balance', async (t) => {
  const anon = client(app.baseUrl);
  const email = 'padaria@example.com';
  const reg = await anon.post('/v1/auth/register', {
    email,
    password: 'uma senha forte',
    name: 'Padaria São João',
    document: '11222333000181',
  });
  t.is(reg.status, 201);
  const http = client(app.baseUrl, reg.body.token);
  t.is((await http.post('/v1/charges', { amount: 100, description: 'cedo demais' })).status, 403);

  await operator('kyc:approve', '--email', email);
  await operator('acquirer:configure', '--email', email);
  t.is((await http.post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: email })).status, 201);

  const key = (await http.post('/v1/api-keys', { name: 'loja', description: 'servidor da loja' })).body.apiKey
    .value as string;
  const server = client(app.baseUrl, key);
  const hook = await server.post('/v1/webhooks/merchant', { url: receiver.url('/pix'), events: ['charge.paid'] });
  t.is(hook.status, 201);

  const created = await server.post(
    '/v1/charges',
    { amount: 2590, description: 'Bolo de fubá' },
    { 'x-idempotency-key': 'pedido-77' },
  );
  t.is(created.status, 201);
  const charge = created.body.charge;
  t.is(decodeQrDataUrl(charge.imageBase64), charge.qrCode);

  const payAt = Date.now();
  t.is((await server.post(`/v1/sandbox/charges/${charge.id}/pay`)).status, 202);
  const [delivery] = await receiver.waitFor(1);
  t.log(`pay request -> webhook received: ${Date.now() - payAt} ms`);

  const body = new Webhook(hook.body.webhook.secret.replace(/^wh_/, '')).verify(
    delivery.body,
    delivery.headers as Record<string, string>,
  ) as any;
  t.is(body.event, 'charge.paid');
  t.like(body.data, { id: charge.id, status: 'PAID', amount: 2590 });
  t.is((await server.get(`/v1/charges/${charge.id}`)).body.charge.status, 'PAID');
  t.deepEqual((await server.get('/v1/merchants/me/balance')).body, {
    available: 2590 - 26,
    blocked: 0,
    currency: 'BRL',
  });

  const logs = await waitUntil(
    async () => {
      const [w] = (await server.get('/v1/webhooks/merchant')).body.webhooks;
      return w.logs.length === 1 && w.logs[0].success ? w.logs : null;
    },
    5000,
    'delivery log',
  );
  t.like(logs[0], {
    event: 'charge.paid',
    attempts: 1,
    statusCode: 200,
    success: true,
    deliveryId: delivery.headers['webhook-id'],
  });
});

test('two payments, a withdrawal that completes (with its webhook), an overdraft refused, a concurrent burst, a clean ledger', async (t) => {
  const email = 'mercado@example.com';
  const reg = await client(app.baseUrl).post('/v1/auth/register', {
    email,
    password: 'uma senha forte',
    name: 'Mercado Central',
    document: '52998224725',
  });
  await operator('kyc:approve', '--email', email);
  await operator('acquirer:configure', '--email', email);
  const http = client(app.baseUrl, reg.body.token);
  await http.post('/v1/merchants/me/pix-keys', { type: 'CPF', key: '52998224725' });
  const hook = await http.post('/v1/webhooks/merchant', {
    url: receiver.url('/saques'),
    events: ['withdraw.completed'],
  });
  t.is(hook.status, 201);

  for (const amount of [10_000, 5_000]) {
    const c = (await http.post('/v1/charges', { amount, description: 'venda' })).body.charge;
    await http.post(`/v1/sandbox/charges/${c.id}/pay`);
    await waitUntil(async () => (await http.get(`/v1/charges/${c.id}`)).body.charge.status === 'PAID', 5000, 'payment');
  }
  const net = 10_000 - 99 + 5_000 - 50;
  t.is((await http.get('/v1/merchants/me/balance')).body.available, net);

  const w = await http.post('/v1/merchants/me/withdrawals', {
    amount: 3_000,
    pixKey: 'fornecedor@example.com',
    pixKeyType: 'EMAIL',
    description: 'fornecedor',
  });
  t.is(w.status, 201);
  t.like(w.body.withdrawal, { amount: 3_000, status: 'PROCESSING', pixKeyType: 'EMAIL' });
  const done = await waitUntil(
    async () => {
      const list = (await http.get('/v1/merchants/me/withdrawals')).body;
      return list.withdrawals[0]?.status === 'COMPLETED' ? list : null;
    },
    5000,
    'withdrawal completed',
  );
  t.like(done, { page: 1, limit: 20, total: 1 });
  t.truthy(done.withdrawals[0].batchId);
  const delivered = await waitUntil(
    async () => receiver.requests.find((r) => r.path === '/saques'),
    5000,
    'withdraw.completed webhook',
  );
  t.is(JSON.parse(delivered.body).event, 'withdraw.completed');

  const over = await http.post('/v1/merchants/me/withdrawals', {
    amount: net,
    pixKey: 'fornecedor@example.com',
    pixKeyType: 'EMAIL',
  });
  t.deepEqual([over.status, over.body], [422, { code: 'insufficient_balance', message: 'Saldo insuficiente' }]);

  // a burst that the balance covers only partly: never below zero, every centavo accounted for
  const available = net - 3_000;
  const burst = await Promise.all(
    Array.from({ length: 12 }, () =>
      http.post('/v1/merchants/me/withdrawals', {
        amount: 1_500,
        pixKey: 'fornecedor@example.com',
        pixKeyType: 'EMAIL',
      }),
    ),
  );
  const accepted = burst.filter((r) => r.status === 201).length;
  t.is(accepted, Math.floor(available / 1_500));
  t.true(burst.every((r) => r.status === 201 || (r.status === 422 && r.body.message === 'Saldo insuficiente')));
  t.is((await http.get('/v1/merchants/me/balance')).body.available, available - accepted * 1_500);
  const verify = await operator('ledger:verify');
  t.true(verify.ok);
});
