import type { Deps } from '../deps.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES } from '../platform/queue.ts';
import { expireCharges, settlePayment } from './settlement.ts';
import type { RefundJob } from './refunds.service.ts';

// The worker's charge duties: settle notified payments, return refunds through the acquirer, expire old charges.
export async function registerCharges({ orm, boss, logger, acquirer }: Deps): Promise<void> {
  const log = logger.child({ module: 'charges' });
  await boss.work<PaymentNotification>(QUEUES.acquirerNotification, { batchSize: 20, burstWhenBatchFull: true }, async (jobs) => {
    for (const job of jobs) await settlePayment(orm.em.fork(), boss, log, job.data);
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
