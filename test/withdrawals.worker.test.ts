import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { eventsOf, fund, ledgerKinds, sandboxTransfers, waitFor } from './withdrawals.helpers.ts';

// The API and a separate worker process-alike (own pools, own pg-boss), as deployed.
let app: TestApp;
let stopWorker: () => Promise<void>;
test.before(async () => {
  app = await startTestApp();
  stopWorker = await startBackground(app, 'worker');
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

const PATH = '/v1/merchants/me/withdrawals';

async function withdraw(pixKey: string, amount = 700, funds = 1000) {
  const m = await createMerchant(app);
  await fund(app, m.merchantId, funds);
  const postedAt = Date.now();
  const res = await m.http.post(PATH, { amount, pixKey, pixKeyType: 'EMAIL' });
  if (res.status !== 201) throw new Error(`withdrawal failed: ${res.status} ${JSON.stringify(res.body)}`);
  const read = async () => (await m.http.get(`${PATH}/${res.body.withdrawal.id}`)).body.withdrawal;
  const balance = async () => (await m.http.get('/v1/merchants/me/balance')).body.available as number;
  return { m, created: res.body.withdrawal, read, balance, postedAt };
}

test('an ordinary key: COMPLETED by the worker, with the acquirer batch id and withdraw.completed', async (t) => {
  const { m, created, read, balance, postedAt } = await withdraw('someone@example.com');
  const done = await waitFor('COMPLETED', async () => {
    const w = await read();
    return w.status === 'COMPLETED' && w;
  });
  // the contract's "within a second" holds on an idle machine; here, beside the suite's other files, it is logged
  t.log(`PROCESSING -> COMPLETED in ${Date.now() - postedAt} ms`);
  t.regex(done.batchId, /^sbx-batch-[0-9a-f]{16}$/);
  t.truthy(done.completedAt);
  t.is(done.failedAt, null);
  t.is(await balance(), 300);
  t.deepEqual(await ledgerKinds(app, created.id), ['withdrawal']);
  const events = await eventsOf(app, m.merchantId);
  t.deepEqual(
    events.map((e) => e.type),
    ['withdraw.completed'],
  );
  t.like(events[0].data, {
    id: created.id,
    status: 'COMPLETED',
    amount: 700,
    batchId: done.batchId,
    pixKey: 'someone@example.com',
  });
  t.deepEqual(
    (await sandboxTransfers(app, created.id)).map((r) => r.status),
    ['COMPLETED'],
  );
  // the listing shows the new state; a replay of the creation still answers the original body
  t.like((await m.http.get(PATH)).body.withdrawals[0], { id: created.id, status: 'COMPLETED', batchId: done.batchId });
});

test('fail@sandbox.test: FAILED with no batch, balance reverted, one withdraw.failed', async (t) => {
  const { m, created, read, balance } = await withdraw('fail@sandbox.test');
  t.is(await balance(), 300, 'debited while PROCESSING');
  const failed = await waitFor('FAILED', async () => {
    const w = await read();
    return w.status === 'FAILED' && w;
  });
  t.is(failed.batchId, null);
  t.truthy(failed.failedAt);
  t.is(failed.completedAt, null);
  t.is(typeof failed.failureReason, 'string');
  t.is(await balance(), 1000);
  t.deepEqual(await ledgerKinds(app, created.id), ['withdrawal', 'withdrawal.reversal']);
  const events = await eventsOf(app, m.merchantId);
  t.deepEqual(
    events.map((e) => e.type),
    ['withdraw.failed'],
  );
  t.like(events[0].data, { id: created.id, status: 'FAILED', batchId: null, failureReason: failed.failureReason });
});

test('return@sandbox.test: COMPLETED, then returned: credited back, returnedAt, withdraw.completed then withdraw.refunded', async (t) => {
  const { m, created, read, balance } = await withdraw('return@sandbox.test');
  const returned = await waitFor('returned', async () => {
    const w = await read();
    return w.returnedAt && w;
  });
  t.is(returned.status, 'COMPLETED', 'the transfer did complete; the return is recorded beside it');
  t.truthy(returned.completedAt);
  t.truthy(returned.batchId);
  t.true(Date.parse(returned.returnedAt) >= Date.parse(returned.completedAt));
  t.is(await balance(), 1000);
  t.deepEqual(await ledgerKinds(app, created.id), ['withdrawal', 'withdrawal.return']);
  const events = await eventsOf(app, m.merchantId);
  t.deepEqual(
    events.map((e) => e.type),
    ['withdraw.completed', 'withdraw.refunded'],
  );
  t.like(events[1].data, { id: created.id, status: 'COMPLETED', returnedAt: returned.returnedAt });
  t.deepEqual(
    (await sandboxTransfers(app, created.id)).map((r) => r.status),
    ['RETURNED'],
  );
});

test('a replayed creation answers the original body even after the withdrawal completed', async (t) => {
  const m = await createMerchant(app);
  await fund(app, m.merchantId, 1000);
  const body = { amount: 100, pixKey: 'someone@example.com', pixKeyType: 'EMAIL' };
  const first = await m.http.post(PATH, body, { 'x-idempotency-key': 'k1' });
  await waitFor(
    'COMPLETED',
    async () => (await m.http.get(`${PATH}/${first.body.withdrawal.id}`)).body.withdrawal.status === 'COMPLETED',
  );
  const replay = await m.http.post(PATH, body, { 'x-idempotency-key': 'k1' });
  t.is(replay.status, 200);
  t.deepEqual(replay.body, first.body);
});
