import type { Deps } from '../deps.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES, settleEach } from '../platform/queue.ts';
import { expireCharges, settlePayment, settlePayments } from './settlement.ts';
import type { RefundJob } from './refunds.service.ts';

const SETTLE_BATCH = 50;

// The worker's charge duties: settle notified payments, return refunds through the acquirer, expire old charges.
export async function registerCharges({ orm, boss, logger, acquirer }: Deps): Promise<void> {
  const log = logger.child({ module: 'charges' });
  // Whatever is queued settles together, in one transaction (see settlePayments); two loops, so new notifications are
  // fetched while a batch commits. Should a batch fail, its payments are settled one by one, so one bad notification
  // fails (and is retried by pg-boss) alone. Settlement is idempotent: a retry never pays twice.
  await boss.work<PaymentNotification>(QUEUES.acquirerNotification,
    { batchSize: SETTLE_BATCH, localConcurrency: 2, burstWhenBatchFull: true, perJobResults: true },
    async (jobs) => {
      try {
        await settlePayments(orm.em.fork(), boss, log, jobs.map((j) => j.data));
        return jobs.map((j) => ({ id: j.id, status: 'completed' as const }));
      } catch (err) {
        if (jobs.length === 1) throw err;
        log.warn({ err, payments: jobs.length }, 'batch settlement failed, settling its payments one by one');
        return settleEach(jobs, async (data) => { await settlePayment(orm.em.fork(), boss, log, data); });
      }
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
