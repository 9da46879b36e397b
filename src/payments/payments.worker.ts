// The worker's payment queues: settle notified payments, record the unsettled, reconcile with a PSP.
import type { Job } from 'pg-boss';
import type { AcquirerDeps, PaymentNotification } from '../acquirer/acquirer.ts';
import { EVERY_MINUTE, QUEUES, WORK_POLLING, every, settleEach, work } from '../platform/queue.ts';
import type { PaymentMetrics } from './payments.metrics.ts';
import { settlePayments } from './settlement.ts';
import { reconcilePayments } from './reconciliation.ts';
import { settledTime, settleUnsettled } from './unsettled.ts';

type Settled = PaymentMetrics['settled'];
const NO_METRICS: PaymentMetrics = { settled: () => {}, unsettled: () => {} };

const SETTLE_BATCH = 50;

// The worker's payment duties: settle notified payments, and record those that could not be; with a PSP, settle the
// payments it never notified. `metrics` is told of each settled batch and each unsettled notification.
export async function registerPayments(deps: AcquirerDeps, metrics: PaymentMetrics = NO_METRICS): Promise<void> {
  const { boss, config } = deps;
  const log = deps.logger.child({ module: 'payments' });
  const ctx = { ...deps, logger: log };
  await work(
    boss,
    QUEUES.acquirerNotification,
    { ...WORK_POLLING, batchSize: SETTLE_BATCH, burstWhenBatchFull: true },
    (jobs) => settleBatch(ctx, jobs, metrics.settled),
  );
  // notifications that failed on every retry (their dead letter queue): recorded, never left waiting
  await work(boss, QUEUES.paymentUnsettled, { ...WORK_POLLING, batchSize: 10, perJobResults: true }, (jobs) =>
    settleEach(jobs, async (n) => {
      const outcome = await settleUnsettled(ctx, n);
      metrics.unsettled(outcome);
      log.warn({ endToEndId: n.endToEndId, outcome }, 'notification unsettled after its retries');
    }),
  );
  if (config.apipix) {
    const windowMs = config.apipix.reconcileWindowSeconds * 1000;
    await every(boss, QUEUES.paymentsReconcile, EVERY_MINUTE, async () => {
      const found = await reconcilePayments(ctx, new Date(Date.now() - windowMs), new Date());
      if (found) log.warn({ found }, 'payments never notified by the acquirer: settling them');
    });
  }
}

/**
 * A batch of notified payments: each is confirmed with the acquirer (nothing in a notification is trusted), then
 * whatever is confirmed settles together in one transaction. A payment the acquirer does not confirm changes nothing;
 * one it could not be asked about is retried. Should the batch fail, its payments settle one by one, so one bad
 * notification never holds the others back; settlement is idempotent, a retry never pays twice.
 */
async function settleBatch(deps: AcquirerDeps, jobs: Job<PaymentNotification>[], settled: Settled): Promise<void> {
  const { boss, logger: log } = deps;
  // failed as the attempts this worker holds (id + retryCount): a claim that lapsed to another worker is left alone
  const fail = (job: Job<PaymentNotification>, reason: unknown) =>
    boss.fail(QUEUES.acquirerNotification, { id: job.id, retryCount: job.retryCount }, { message: String(reason) });
  const asked = await Promise.allSettled(jobs.map((j) => deps.acquirer.confirmPayment(j.data)));
  const learntAt = new Date();
  const confirmed: { job: Job<PaymentNotification>; payment: PaymentNotification }[] = [];
  for (const [i, job] of jobs.entries()) {
    const r = asked[i];
    if (r.status === 'rejected') await fail(job, r.reason);
    else if (r.value) {
      const paidAt = settledTime(r.value.paidAt, learntAt, r.value.simulated);
      confirmed.push({ job, payment: { ...r.value, paidAt } });
    } else log.warn({ endToEndId: job.data.endToEndId }, 'payment not confirmed by the acquirer: ignored');
  }
  if (confirmed.length === 0) return;
  const settle = async (payments: PaymentNotification[]) =>
    settled(payments, await settlePayments(deps, deps.orm.em.fork(), payments));
  try {
    await settle(confirmed.map((c) => c.payment));
  } catch (err) {
    if (confirmed.length === 1) throw err;
    log.warn({ err, payments: confirmed.length }, 'batch settlement failed, settling its payments one by one');
    for (const c of confirmed) await settle([c.payment]).catch((e: unknown) => fail(c.job, e));
  } // returning completes the jobs still active: all of them, or all but the failed ones
}
