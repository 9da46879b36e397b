import test from 'ava';
import { startReceiver, type Receiver } from '../../test/support/receiver.ts';
import type { TestApp } from '../../test/support/app.ts';
import {
  createPixClient,
  signWebhook,
  verifyWebhook,
  WEBHOOK_ERRORS,
  WebhookVerificationError,
  type PixEvent,
} from '../src/index.ts';
import { integrator, startService } from './support.ts';

let app: TestApp;
let close: () => Promise<void>;
const receivers: Receiver[] = [];
test.before(async () => {
  ({ app, close } = await startService());
});
test.after.always(async () => {
  for (const r of receivers) await r.close();
  await close?.();
});

test('the typed client creates a charge, reads it back, and returns the API error as `error`', async (t) => {
  const { pix } = await integrator(app);
  const created = await pix.POST('/v1/charges', {
    body: { amount: 2590, description: 'Bolo de fubá' },
    params: { header: { 'x-idempotency-key': 'pedido-77' } },
  });
  t.is(created.response.status, 201);
  t.is(created.error, undefined);
  const charge = created.data!.charge;
  t.like(charge, { amount: 2590, description: 'Bolo de fubá', status: 'PENDING' });

  const replay = await pix.POST('/v1/charges', {
    body: { amount: 2590, description: 'Bolo de fubá' },
    params: { header: { 'x-idempotency-key': 'pedido-77' } },
  });
  t.is(replay.response.status, 200);
  t.is(replay.data!.charge.id, charge.id);

  const read = await pix.GET('/v1/charges/{id}', { params: { path: { id: charge.id } } });
  t.is(read.data!.charge.id, charge.id);

  const refused = await pix.POST('/v1/charges', { body: { amount: 0, description: 'nada' } });
  t.is(refused.response.status, 400);
  t.is(refused.data, undefined);
  t.truthy(refused.error!.message);

  const anonymous = await createPixClient({ baseUrl: `${app.baseUrl}/` }).GET('/v1/charges');
  t.is(anonymous.response.status, 401);
  t.is(anonymous.error!.message, 'Cabeçalho de autorização ausente');
});

// A charge paid in the sandbox, delivered by the webhook daemon to a receiver of its own: the request as it came.
async function deliveredChargePaid() {
  const { pix } = await integrator(app);
  const receiver = await startReceiver();
  receivers.push(receiver);
  const hook = await pix.POST('/v1/webhooks/merchant', { body: { url: receiver.url(), events: ['charge.paid'] } });
  const { secret } = hook.data!.webhook as { secret: string };
  const { charge } = (await pix.POST('/v1/charges', { body: { amount: 1050, description: 'Pedido 1' } })).data!;
  await pix.POST('/v1/sandbox/charges/{id}/pay', { params: { path: { id: charge.id } } });
  const [delivery] = await receiver.waitFor(1, 60_000); // generous: a loaded machine
  return { delivery, secret, charge };
}

test('verifyWebhook returns the typed event of a real delivery, and throws on a tampered one', async (t) => {
  const { delivery, secret, charge } = await deliveredChargePaid();
  const event: PixEvent = verifyWebhook({ secret, headers: delivery.headers, body: delivery.body });
  if (event.event !== 'charge.paid') return t.fail(`got ${event.event}`);
  t.like(event.data, { id: charge.id, status: 'PAID', amount: 1050 });
  t.truthy(event.data.paidAt); // typed: a charge.paid's data is the paid charge

  // the same secret in the Standard Webhooks form, headers as fetch's Headers, the body as bytes
  const headers = new Headers(delivery.headers as Record<string, string>);
  const again = verifyWebhook({
    secret: secret.replace(/^wh_/, 'whsec_'),
    headers,
    body: new TextEncoder().encode(delivery.body),
  });
  t.deepEqual(again, event);

  const tampered = delivery.body.replace('"amount":1050', '"amount":1');
  t.not(tampered, delivery.body);
  t.throws(() => verifyWebhook({ secret, headers: delivery.headers, body: tampered }), {
    instanceOf: WebhookVerificationError,
  });
  const otherSecret = `wh_${Buffer.alloc(32, 7).toString('base64')}`;
  t.throws(() => verifyWebhook({ secret: otherSecret, headers: delivery.headers, body: delivery.body }), {
    instanceOf: WebhookVerificationError,
  });
  t.throws(() =>
    verifyWebhook({ secret, headers: { ...delivery.headers, 'webhook-signature': undefined }, body: delivery.body }),
  );
});

test('verifyWebhook accepts a signature header with two signatures (a secret rotation overlap), with either secret', async (t) => {
  const { delivery, secret: oldSecret } = await deliveredChargePaid();
  const newSecret = `wh_${Buffer.alloc(32, 9).toString('base64')}`;
  const id = delivery.headers['webhook-id'] as string;
  const at = new Date(Number(delivery.headers['webhook-timestamp']) * 1000);
  const byNew = signWebhook(newSecret, id, delivery.body, at)['webhook-signature'];
  const headers = { ...delivery.headers, 'webhook-signature': `${byNew} ${delivery.headers['webhook-signature']}` };

  for (const secret of [newSecret, oldSecret, [newSecret, oldSecret]]) {
    t.is(verifyWebhook({ secret, headers, body: delivery.body }).event, 'charge.paid');
  }
  const third = `wh_${Buffer.alloc(32, 3).toString('base64')}`;
  t.throws(() => verifyWebhook({ secret: third, headers, body: delivery.body }), {
    instanceOf: WebhookVerificationError,
  });
  // a receiver that kept both secrets while the sender signs with only one of them
  t.is(
    verifyWebhook({ secret: [third, oldSecret], headers: delivery.headers, body: delivery.body }).event,
    'charge.paid',
  );
});

test('verifyWebhook refusals carry a stable code and a Portuguese message, still WebhookVerificationError', (t) => {
  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
  const body = JSON.stringify({ id: 'e1', event: 'charge.paid', createdAt: new Date().toISOString(), data: {} });
  const headers = signWebhook(secret, 'msg_1', body);
  const refused = (input: Partial<Parameters<typeof verifyWebhook>[0]>) =>
    t.throws(() => verifyWebhook({ secret, headers, body, ...input }), { instanceOf: WebhookVerificationError }) as
      (WebhookVerificationError & { code: string }) | undefined;

  t.like(refused({ body: body.replace('e1', 'e2') }), {
    code: 'signature_mismatch',
    message: 'Assinatura não confere com o segredo (No matching signature found)',
  });
  t.like(refused({ headers: { ...headers, 'webhook-id': undefined } }), {
    code: 'missing_headers',
    message: WEBHOOK_ERRORS.missing_headers,
  });
  const old = signWebhook(secret, 'msg_1', body, new Date(Date.now() - 10 * 60_000));
  t.like(refused({ headers: old }), { code: 'timestamp_too_old', message: WEBHOOK_ERRORS.timestamp_too_old });
  t.like(refused({ headers: { ...headers, 'webhook-timestamp': 'ontem' } }), { code: 'invalid_timestamp' });
  // the English text the library used to throw is still in the message
  t.regex(refused({ secret: `whsec_${Buffer.alloc(32, 6).toString('base64')}` })!.message, /No matching signature/);

  // a secret that cannot be read is the receiver's configuration: not a refused delivery
  const misconfigured = t.throws(() => verifyWebhook({ secret: 'whsec_', headers, body }), { instanceOf: TypeError });
  t.like(misconfigured, { code: 'invalid_secret', message: WEBHOOK_ERRORS.invalid_secret });
  t.false(misconfigured instanceof WebhookVerificationError);
});
