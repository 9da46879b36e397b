import type { Deps } from '../deps.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES } from '../platform/queue.ts';
import { expireCharges, settlePayment, settlePayments } from './settlement.ts';
import type { RefundJob } from './refunds.service.ts';

const SETTLE_BATCH = 50;

// The worker's charge duties: settle notified payments, return refunds through the acquirer, expire old charges.
export async function registerCharges({ orm, boss, logger, acquirer }: Deps): Promise<void> {
  const log = logger.child({ module: 'charges' });
  // Whatever is queued settles together, in one transaction (see settlePayments). Should a batch fail, its payments
  // are settled one by one: the ones that fail are failed in pg-boss (retried with backoff, then dead-lettered) and the
  // rest complete, so one bad notification never holds the others back. Settlement is idempotent: a retry never pays
  // twice. (Per-job results are set by hand rather than with pg-boss's perJobResults, whose completion statement costs
  // several times the plain one on every batch.)
  await boss.work<PaymentNotification>(QUEUES.acquirerNotification, { batchSize: SETTLE_BATCH, burstWhenBatchFull: true }, async (jobs) => {
    try {
      await settlePayments(orm.em.fork(), boss, log, jobs.map((j) => j.data));
    } catch (err) {
      if (jobs.length === 1) throw err;
      log.warn({ err, payments: jobs.length }, 'batch settlement failed, settling its payments one by one');
      const results = await Promise.allSettled(jobs.map((j) => settlePayment(orm.em.fork(), boss, log, j.data)));
      // failed as the attempts this worker holds (id + retryCount): a claim that lapsed to another worker is left alone
      for (const [i, job] of jobs.entries()) {
        const r = results[i];
        if (r.status === 'rejected') await boss.fail(QUEUES.acquirerNotification, { id: job.id, retryCount: job.retryCount }, { message: String(r.reason) });
      }
    } // returning completes the jobs still active: all of them, or all but the failed ones
  });
  await boss.work<RefundJob>(QUEUES.chargeRefund, async ([job]) => {
    // idempotent at the acquirer by refundId, so a retried job never returns the money twice
    const result = await acquirer.refund({ endToEndId: job.data.endToEndId, refundId: job.data.chargeId, amount: job.data.amount });
    log.info({ chargeId: job.data.chargeId, result: result.status }, 'refund sent to the acquirer');
  });
  await boss.work(QUEUES.chargesExpire, async () => {
    const expired = await expireCharges(orm.em.fork());
    if (expired) log.info({ expired }, 'charges expired');
  });
  await boss.schedule(QUEUES.chargesExpire, '* * * * *');
}
