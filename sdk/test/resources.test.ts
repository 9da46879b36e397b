import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startReceiver, type Receiver } from '../../test/support/receiver.ts';
import type { TestApp } from '../../test/support/app.ts';
import { PixApiError, verifyWebhook, type Pix } from '../src/index.ts';
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

const day = (days: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(Date.now() + days * 86_400_000);

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not yet after ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function paid(pix: Pix, amount: number) {
  const charge = await pix.charges.create({ amount, description: 'venda' });
  await pix.POST('/v1/sandbox/charges/{id}/pay', { params: { path: { id: charge.id } } });
  return until(
    () => pix.charges.get(charge.id),
    (c) => c.status === 'PAID',
  );
}

test('charges: create (its own key, or the one given: a repeat is the same charge), get, list, refund', async (t) => {
  const { pix } = await integrator(app);
  const charge = await pix.charges.create({ amount: 1050, description: 'Pedido 1' });
  t.like(charge, { amount: 1050, description: 'Pedido 1', status: 'PENDING' });
  const again = await pix.charges.create({ amount: 1050, description: 'Pedido 1' });
  t.not(again.id, charge.id, 'a new key for each call');

  const key = `pedido-${randomUUID()}`;
  const keyed = await pix.charges.create({ amount: 700, description: 'Pedido 2' }, { idempotencyKey: key });
  const replay = await pix.charges.create({ amount: 700, description: 'Pedido 2' }, { idempotencyKey: key });
  t.is(replay.id, keyed.id);

  t.like(await pix.charges.get(charge.id), { id: charge.id, status: 'PENDING', refund: null });
  const page = await pix.charges.list({ limit: 2 });
  t.is(page.total, 3);
  t.is(page.charges.length, 2);
  t.deepEqual(
    (await pix.charges.list({ status: 'PENDING', limit: 10 })).charges.map((c) => c.id).sort(),
    [charge.id, again.id, keyed.id].sort(),
  );

  const every: string[] = [];
  for await (const c of pix.charges.all({ limit: 2 })) every.push(c.id); // two pages
  t.deepEqual(every.sort(), [charge.id, again.id, keyed.id].sort());

  const sold = await paid(pix, 5000);
  const refund = await pix.charges.refund(sold.id, { amount: 2000, reason: 'Produto devolvido' });
  t.like(refund, { amount: 2000, status: 'PROCESSING' });
  const read = await until(
    () => pix.charges.get(sold.id),
    // the charge and its latest refund are two reads: wait for both to show the completion
    (c) => c.refund?.status === 'COMPLETED' && c.refundedAmount === 2000,
  );
  t.is(read.refund!.id, refund.id);
  t.is(read.refundedAmount, 2000);
});

test('withdrawals: create and list', async (t) => {
  const { pix } = await integrator(app);
  await paid(pix, 3000);
  const withdrawal = await pix.withdrawals.create({
    amount: 100,
    pixKey: 'destino@example.com',
    pixKeyType: 'EMAIL',
    description: 'saque',
  });
  t.like(withdrawal, { amount: 100, pixKey: 'destino@example.com' });
  const page = await pix.withdrawals.list();
  t.deepEqual(
    page.withdrawals.map((w) => w.id),
    [withdrawal.id],
  );
  t.is(page.total, 1);
});

test('webhooks: create, list, update, test, resend, rotateSecret, remove', async (t) => {
  const { pix } = await integrator(app);
  const receiver = await startReceiver();
  receivers.push(receiver);
  const hook = await pix.webhooks.create({ url: receiver.url('/a'), events: ['charge.paid'] });
  t.regex(hook.secret, /^wh_/);
  t.deepEqual(
    (await pix.webhooks.list()).map((w) => w.id),
    [hook.id],
  );
  const updated = await pix.webhooks.update(hook.id, { url: receiver.url('/b'), name: 'loja' });
  t.like(updated, { id: hook.id, url: receiver.url('/b'), name: 'loja' });

  const delivery = await pix.webhooks.test(hook.id, { event: 'charge.paid' });
  t.like(delivery, { event: 'charge.paid', status: 'PENDING' });
  const [first] = await receiver.waitFor(1, 60_000);
  t.is(first.path, '/b');
  t.is(verifyWebhook({ secret: hook.secret, headers: first.headers, body: first.body }).event, 'charge.paid');
  await until(
    async () => (await pix.GET('/v1/webhooks/merchant/{id}/deliveries', { params: { path: { id: hook.id } } })).data!,
    (d) => d.deliveries.some((l) => l.id === delivery.id && l.status === 'SUCCEEDED'),
  );

  const resent = await pix.webhooks.resend(hook.id, delivery.id);
  t.is(resent.id, delivery.id);
  const [, second] = await receiver.waitFor(2, 60_000);
  t.is(second.headers['webhook-id'], first.headers['webhook-id']);

  const rotated = await pix.webhooks.rotateSecret(hook.id, { overlapSeconds: 60 });
  t.regex(rotated.secret, /^wh_/);
  t.not(rotated.secret, hook.secret);
  t.truthy(rotated.previousSecretExpiresAt);

  await pix.webhooks.remove(hook.id);
  t.deepEqual(await pix.webhooks.list(), []);
  const gone = await t.throwsAsync(pix.webhooks.remove(hook.id), { instanceOf: PixApiError });
  t.is(gone.status, 404);
});

test('events: list, and stream as an async iterable', async (t) => {
  const { pix } = await integrator(app);
  const stop = new AbortController();
  let connected!: () => void;
  const connecting = new Promise<void>((resolve) => (connected = resolve));
  const stream = pix.events.stream({ signal: stop.signal, onConnect: () => connected() })[Symbol.asyncIterator]();
  const next = stream.next(); // connects
  await connecting; // the stream starts with the merchant's next event: the charge's must come after
  const charge = await paid(pix, 1234);
  const { value } = await next;
  stop.abort();
  t.is(value!.event.event, 'charge.paid');
  t.is(value!.event.data.id, charge.id);
  const page = await pix.events.list({ type: 'charge.paid' });
  t.deepEqual(
    page.events.map((e) => e.id),
    [value!.id],
  );
});

test('mandates (create, get, list, cancel) and recurring charges (create, get, list, retry)', async (t) => {
  const { pix } = await integrator(app, { company: true });
  const body = {
    journey: 'QR' as const,
    customer: { name: 'Maria Silva', document: '52998224725' },
    contract: 'CT-42',
    object: 'Plano semanal',
    frequency: 'WEEKLY' as const,
    startDate: day(2),
    amount: 1000,
    retryPolicy: 'THREE_IN_SEVEN_DAYS' as const,
  };
  const mandate = await pix.mandates.create(body);
  t.like(mandate, { status: 'CREATED', amount: 1000 });
  await pix.POST('/v1/sandbox/mandates/{id}/approve', { params: { path: { id: mandate.id } } });
  t.is((await pix.mandates.get(mandate.id)).status, 'APPROVED');

  const charge = await pix.recurringCharges.create(mandate.id, {
    dueDate: day(2),
    amount: 1000,
    description: 'ciclo 1',
  });
  t.like(charge, { mandateId: mandate.id, amount: 1000, dueDate: day(2) });
  t.is((await pix.recurringCharges.get(charge.id)).id, charge.id);
  t.deepEqual(
    (await pix.recurringCharges.list()).recurringCharges.map((c) => c.id),
    [charge.id],
  );
  await pix.POST('/v1/sandbox/recurring-charges/{id}/attempt', {
    params: { path: { id: charge.id } },
    body: { outcome: 'REJECTED', failureCode: 'AM04' },
  });
  // the key is sent (the API checks it: 1..64 characters), the given one or a new UUID
  const badKey = await t.throwsAsync(
    pix.recurringCharges.retry(charge.id, { date: day(3) }, { idempotencyKey: 'x'.repeat(65) }),
    { instanceOf: PixApiError },
  );
  t.like(badKey, { status: 400, errors: [{ field: 'x-idempotency-key' }] });
  const retried = await pix.recurringCharges.retry(charge.id, { date: day(3) }, { idempotencyKey: 'retry-1' });
  t.like(retried.attempts.at(-1), { kind: 'RETRY', status: 'SCHEDULED', date: day(3) });

  const other = await pix.mandates.create({ ...body, contract: 'CT-43' });
  t.is((await pix.mandates.list()).total, 2);
  const canceled = await pix.mandates.cancel(other.id, { reason: 'Cliente desistiu' });
  t.is(canceled.status, 'CANCELED');
  t.is((await pix.mandates.get(other.id)).status, 'CANCELED');
});

test('a refusal throws PixApiError with status, code, message, errors and requestId', async (t) => {
  const { pix } = await integrator(app);
  const missing = await t.throwsAsync(pix.charges.get(randomUUID()), { instanceOf: PixApiError });
  t.is(missing.status, 404);
  t.truthy(missing.message);
  t.regex(missing.code, /^[a-z_0-9]+$/);
  t.deepEqual(missing.errors, []);
  t.regex(missing.requestId!, /\S+/);

  const invalid = await t.throwsAsync(pix.charges.create({ amount: 0, description: 'nada' }), {
    instanceOf: PixApiError,
  });
  t.is(invalid.status, 400);
  t.true(
    invalid.errors.some((e) => e.field === 'amount'),
    JSON.stringify(invalid.errors),
  );
  t.not(invalid.requestId, missing.requestId);
  t.is((await pix.charges.list()).total, 0, 'nothing was created');
});
