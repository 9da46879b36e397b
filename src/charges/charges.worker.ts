import type { Deps } from '../deps.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES } from '../platform/queue.ts';
import { expireCharges, settlePayment } from './settlement.ts';
import type { RefundJob } from './refunds.service.ts';

// The worker's charge duties: settle notified payments, return refunds through the acquirer, expire old charges.
export async function registerCharges({ orm, boss, logger, acquirer }: Deps): Promise<void> {
  const log = logger.child({ module: 'charges' });
  // A batch settles concurrently (each payment in its own transaction); a failure fails the batch, which pg-boss
  // retries, and settlement is idempotent, so the payments that went through are not paid again.
  await boss.work<PaymentNotification>(QUEUES.acquirerNotification, { batchSize: 8, burstWhenBatchFull: true }, async (jobs) => {
    const results = await Promise.allSettled(jobs.map((job) => settlePayment(orm.em.fork(), boss, log, job.data)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
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
