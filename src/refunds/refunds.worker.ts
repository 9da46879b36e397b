// The worker's refund queues: send devoluções to the acquirer, reconcile those in progress.
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { EVERY_MINUTE, QUEUES, WORK_POLLING, every, settleEach, work } from '../platform/queue.ts';
import { reconcileRefunds, sendRefund } from './refunds.states.ts';

const BATCH = 10;

// The worker's refund duties: send devoluções to the acquirer, and ask it about those still in progress.
export async function registerRefunds(deps: AcquirerDeps): Promise<void> {
  const { boss, config } = deps;
  const log = deps.logger.child({ module: 'refunds' });
  const ctx = { ...deps, logger: log };
  // Batches + burst: devoluções queued while the worker was down drain at once, each job settled on its own.
  await work(
    boss,
    QUEUES.refundSend,
    { ...WORK_POLLING, batchSize: BATCH, burstWhenBatchFull: true, perJobResults: true },
    (jobs) => settleEach(jobs, (data) => sendRefund(ctx, data.refundId)),
  );
  await every(boss, QUEUES.refundReconcile, EVERY_MINUTE, async () => {
    const summary = await reconcileRefunds(ctx, { olderThanSeconds: config.refundReconcileAfterSeconds });
    if (summary.checked) log.info(summary, 'refunds reconciled');
  });
}
