import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { reconcileWithdrawals, sendWithdrawal } from '../src/withdrawals/withdrawals.states.ts';
import { eventsOf, fund, ledgerKinds, sandboxTransfers, sql, waitFor } from './withdrawals.helpers.ts';

// Crash safety. The API runs alone (no worker) so each test decides exactly what the "crashed" worker got done;
// then a worker is started to show the leftovers (queued jobs, scheduled outcomes) change nothing more.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const PATH = '/v1/merchants/me/withdrawals';

async function processingWithdrawal(pixKey = 'someone@example.com') {
  const m = await createMerchant(app);
  await fund(app, m.merchantId, 1000);
  const res = await m.http.post(PATH, { amount: 400, pixKey, pixKeyType: 'EMAIL' });
  const w = res.body.withdrawal;
  const read = async () => (await m.http.get(`${PATH}/${w.id}`)).body.withdrawal;
  const balance = async () => (await m.http.get('/v1/merchants/me/balance')).body.available as number;
  return { m, w, read, balance };
}

const jobsDone = (queue: string, field: string, id: string) => async () => {
  const rows = await sql<{ state: string }>(
    app,
    `select state from pgboss.job where name = ? and data->>'${field}' = ?`,
    [queue, id],
  );
  return rows.length > 0 && rows.every((r) => r.state === 'completed');
};

async function withWorker(run: () => Promise<unknown>) {
  const stop = await startBackground(app, 'worker');
  try {
    await run();
  } finally {
    await stop();
  }
}

test.serial("reconcile leaves fresh withdrawals alone (they are the send job's business)", async (t) => {
  const { w } = await processingWithdrawal();
  const summary = await reconcileWithdrawals(app.deps, { olderThanSeconds: 60 });
  t.is(summary.checked, 0);
  t.deepEqual(await sandboxTransfers(app, w.id), []);
});

test.serial('crash before sending: reconcile sends it (once), the leftover send job does not send again', async (t) => {
  const { m, w, read, balance } = await processingWithdrawal();
  t.deepEqual(await sandboxTransfers(app, w.id), [], 'the acquirer never heard of it');
  const summary = await reconcileWithdrawals(app.deps, { olderThanSeconds: 0 });
  t.true(summary.resent >= 1 && summary.errors === 0, JSON.stringify(summary)); // earlier tests' withdrawals are candidates too
  const [transfer] = await sandboxTransfers(app, w.id);
  t.like(transfer, { status: 'PROCESSING', requests: 1 });
  t.is((await read()).batchId, transfer.batch_id, "the acquirer's acceptance is recorded");

  await withWorker(async () => {
    await waitFor('COMPLETED', async () => (await read()).status === 'COMPLETED');
    await waitFor('send job done', jobsDone(QUEUES.withdrawalSend, 'withdrawalId', w.id));
  });
  t.deepEqual(
    (await sandboxTransfers(app, w.id)).map((r) => [r.status, r.requests]),
    [['COMPLETED', 1]],
  );
  t.deepEqual(
    (await eventsOf(app, m.merchantId)).map((e) => e.type),
    ['withdraw.completed'],
  );
  t.is(await balance(), 600);
});

test.serial(
  "crash after sending, before recording: reconcile applies the acquirer's outcome; nothing runs twice",
  async (t) => {
    const { m, w, read, balance } = await processingWithdrawal();
    // the worker got this far, then died: the acquirer has the transfer, we have no record of it
    await app.deps.acquirer.transferOut({
      idempotencyKey: w.id,
      amount: w.amount,
      pixKey: w.pixKey,
      pixKeyType: w.pixKeyType,
      description: null,
    });
    // ... and the acquirer completed it while its notification was lost
    await sql(app, `update sandbox_transfers set status = 'COMPLETED' where idempotency_key = ?`, [w.id]);
    t.like(await read(), { status: 'PROCESSING', batchId: null });

    const summary = await reconcileWithdrawals(app.deps, { olderThanSeconds: 0 });
    t.true(summary.applied >= 1 && summary.errors === 0, JSON.stringify(summary));
    const done = await read();
    t.is(done.status, 'COMPLETED');
    t.is(done.batchId, (await sandboxTransfers(app, w.id))[0].batch_id);

    // the leftovers: the original send job and the sandbox's scheduled outcome run now and must change nothing
    await withWorker(async () => {
      await waitFor('send job done', jobsDone(QUEUES.withdrawalSend, 'withdrawalId', w.id));
      await waitFor('sandbox outcome done', jobsDone(QUEUES.sandboxTransfer, 'idempotencyKey', w.id));
    });
    t.deepEqual(
      (await sandboxTransfers(app, w.id)).map((r) => [r.status, r.requests]),
      [['COMPLETED', 1]],
    );
    t.deepEqual(
      (await eventsOf(app, m.merchantId)).map((e) => e.type),
      ['withdraw.completed'],
    );
    t.deepEqual(await ledgerKinds(app, w.id), ['withdrawal']);
    t.is(await balance(), 600);
  },
);

test.serial(
  'crash after a refused transfer, before recording: reconcile fails it and reverts the balance once',
  async (t) => {
    const { m, w, read, balance } = await processingWithdrawal('fail@sandbox.test');
    await app.deps.acquirer.transferOut({
      idempotencyKey: w.id,
      amount: w.amount,
      pixKey: w.pixKey,
      pixKeyType: w.pixKeyType,
      description: null,
    });
    t.is(await balance(), 600);
    t.is((await reconcileWithdrawals(app.deps, { olderThanSeconds: 0 })).errors, 0);
    t.is(
      (await reconcileWithdrawals(app.deps, { olderThanSeconds: 0 })).errors,
      0,
      'a second pass finds nothing more to do',
    );
    t.like(await read(), { status: 'FAILED', batchId: null });
    t.is(await balance(), 1000);
    await withWorker(() => waitFor('send job done', jobsDone(QUEUES.withdrawalSend, 'withdrawalId', w.id)));
    t.deepEqual(await ledgerKinds(app, w.id), ['withdrawal', 'withdrawal.reversal']);
    t.deepEqual(
      (await eventsOf(app, m.merchantId)).map((e) => e.type),
      ['withdraw.failed'],
    );
    t.is(await balance(), 1000);
  },
);

test.serial('duplicate send jobs, run concurrently: one transfer, one debit, one event', async (t) => {
  const { m, w, read, balance } = await processingWithdrawal();
  // handlers racing each other (a job retried while its first run is still going), then two more queued copies
  await Promise.all([sendWithdrawal(app.deps, w.id), sendWithdrawal(app.deps, w.id), sendWithdrawal(app.deps, w.id)]);
  await app.boss.send(QUEUES.withdrawalSend, { withdrawalId: w.id });
  await app.boss.send(QUEUES.withdrawalSend, { withdrawalId: w.id });
  await withWorker(async () => {
    await waitFor('COMPLETED', async () => (await read()).status === 'COMPLETED');
    await waitFor('send jobs done', jobsDone(QUEUES.withdrawalSend, 'withdrawalId', w.id));
  });
  const transfers = await sandboxTransfers(app, w.id);
  t.is(transfers.length, 1);
  t.is(transfers[0].status, 'COMPLETED');
  t.true(transfers[0].requests >= 1 && transfers[0].requests <= 3, `asked ${transfers[0].requests} time(s), sent once`);
  t.deepEqual(
    (await eventsOf(app, m.merchantId)).map((e) => e.type),
    ['withdraw.completed'],
  );
  t.deepEqual(await ledgerKinds(app, w.id), ['withdrawal']);
  t.is(await balance(), 600);
});

test.serial(
  'duplicate or late outcomes change nothing (COMPLETED after FAILED, FAILED after COMPLETED, repeats)',
  async (t) => {
    const { applyTransferOutcome } = await import('../src/withdrawals/withdrawals.states.ts');
    const a = await processingWithdrawal();
    await applyTransferOutcome(app.deps, a.w.id, { status: 'FAILED', batchId: null, failureReason: 'recusada' });
    await applyTransferOutcome(app.deps, a.w.id, { status: 'FAILED', batchId: null, failureReason: 'recusada' });
    await applyTransferOutcome(app.deps, a.w.id, { status: 'COMPLETED', batchId: 'late' });
    await applyTransferOutcome(app.deps, a.w.id, { status: 'RETURNED', batchId: 'late' });
    t.like(await a.read(), { status: 'FAILED', batchId: null, failureReason: 'recusada', returnedAt: null });
    t.deepEqual(await ledgerKinds(app, a.w.id), ['withdrawal', 'withdrawal.reversal']);
    t.is(await a.balance(), 1000);

    const b = await processingWithdrawal();
    await applyTransferOutcome(app.deps, b.w.id, { status: 'COMPLETED', batchId: 'b1' });
    await applyTransferOutcome(app.deps, b.w.id, { status: 'FAILED', batchId: null });
    await applyTransferOutcome(app.deps, b.w.id, { status: 'RETURNED', batchId: 'b1' });
    await applyTransferOutcome(app.deps, b.w.id, { status: 'RETURNED', batchId: 'b1' });
    t.like(await b.read(), { status: 'COMPLETED', batchId: 'b1' });
    t.truthy((await b.read()).returnedAt);
    t.deepEqual(await ledgerKinds(app, b.w.id), ['withdrawal', 'withdrawal.return']);
    t.deepEqual(
      (await eventsOf(app, b.m.merchantId)).map((e) => e.type),
      ['withdraw.completed', 'withdraw.refunded'],
    );
    t.is(await b.balance(), 1000);
  },
);

test.serial('reconcile pages through every stuck withdrawal (more than one page) and stops', async (t) => {
  const m = await createMerchant(app);
  // 250 withdrawals stuck for an hour and never sent (inserted directly: their debits are not the point here)
  const rows = await sql<{ id: string }>(
    app,
    `insert into withdrawals (id, created_at, updated_at, merchant_id, amount, status, pix_key, pix_key_type)
    select gen_random_uuid(), now() - interval '1 hour', now() - interval '1 hour', ?, 100, 'PROCESSING', 'someone@example.com', 'EMAIL'
      from generate_series(1, 250) returning id`,
    [m.merchantId],
  );
  const summary = await reconcileWithdrawals(app.deps, { olderThanSeconds: 60 });
  t.is(summary.errors, 0);
  t.true(summary.checked >= 250, JSON.stringify(summary));
  const sent = await sql<{ n: string }>(
    app,
    `select count(*) as n from sandbox_transfers where idempotency_key in (select id::text from withdrawals where merchant_id = ?) and requests = 1`,
    [m.merchantId],
  );
  t.is(Number(sent[0].n), rows.length, 'each sent exactly once');
  const unsent = await sql(app, `select 1 from withdrawals where merchant_id = ? and batch_id is null`, [m.merchantId]);
  t.is(unsent.length, 0, 'every acceptance recorded');
});
