import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { decodeQrDataUrl } from './support/qr.ts';
import { main as ops } from '../src/ops/cli.ts';

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
  const code = await ops(argv, { out: (s) => out.push(s), err: (s) => out.push(s), env: { DATABASE_URL: app.databaseUrl } });
  if (code !== 0) throw new Error(`ops ${argv.join(' ')}: ${out.join('\n')}`);
  return JSON.parse(out.join('\n'));
}

test('register, onboard, charge, scan, pay in sandbox, receive a verified charge.paid, see the net balance', async (t) => {
  const anon = client(app.baseUrl);
  const email = 'padaria@example.com';
  const reg = await anon.post('/v1/auth/register', { email, password: 'uma senha forte', name: 'Padaria São João', document: '11222333000181' });
  t.is(reg.status, 201);
  const http = client(app.baseUrl, reg.body.token);
  t.is((await http.post('/v1/charges', { amount: 100, description: 'cedo demais' })).status, 403);

  await operator('kyc:approve', '--email', email);
  await operator('acquirer:configure', '--email', email);
  t.is((await http.post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: email })).status, 201);

  const key = (await http.post('/v1/api-keys', { name: 'loja', description: 'servidor da loja' })).body.apiKey.value as string;
  const server = client(app.baseUrl, key);
  const hook = await server.post('/v1/webhooks/merchant', { url: receiver.url('/pix'), events: ['charge.paid'] });
  t.is(hook.status, 201);

  const created = await server.post('/v1/charges', { amount: 2590, description: 'Bolo de fubá' }, { 'x-idempotency-key': 'pedido-77' });
  t.is(created.status, 201);
  const charge = created.body.charge;
  t.is(decodeQrDataUrl(charge.imageBase64), charge.qrCode);

  const payAt = Date.now();
  t.is((await server.post(`/v1/sandbox/charges/${charge.id}/pay`)).status, 202);
  const [delivery] = await receiver.waitFor(1);
  t.log(`pay request -> webhook received: ${Date.now() - payAt} ms`);

  const body = new Webhook(hook.body.webhook.secret.replace(/^wh_/, '')).verify(delivery.body, delivery.headers as Record<string, string>) as any;
  t.is(body.event, 'charge.paid');
  t.like(body.data, { id: charge.id, status: 'PAID', amount: 2590 });
  t.is((await server.get(`/v1/charges/${charge.id}`)).body.charge.status, 'PAID');
  t.deepEqual((await server.get('/v1/merchants/me/balance')).body, { available: 2590 - 26, blocked: 0, currency: 'BRL' });

  const logs = await waitUntil(async () => {
    const [w] = (await server.get('/v1/webhooks/merchant')).body.webhooks;
    return w.logs.length === 1 && w.logs[0].success ? w.logs : null;
  }, 5000, 'delivery log');
  t.like(logs[0], { event: 'charge.paid', attempts: 1, statusCode: 200, success: true, deliveryId: delivery.headers['webhook-id'] });
});
