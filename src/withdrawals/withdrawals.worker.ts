// The worker's withdrawal queues: send each to the acquirer, reconcile the stuck ones.
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { enqueue, EVERY_MINUTE, every, QUEUES, WORK_POLLING, settleEach, work } from '../platform/queue.ts';
import { reconcileWithdrawals, sendWithdrawal } from './withdrawals.states.ts';

const SEND_BATCH = 10;

// Worker side of withdrawals: send each one to the acquirer, and reconcile the stuck ones every minute and at start.
export async function registerWithdrawals(deps: AcquirerDeps): Promise<void> {
  const { boss, config, logger } = deps;
  // Batches + burst: a wave of withdrawals is drained at once, not one per NOTIFY.
  await work(
    boss,
    QUEUES.withdrawalSend,
    { ...WORK_POLLING, batchSize: SEND_BATCH, burstWhenBatchFull: true, perJobResults: true },
    (jobs) => settleEach(jobs, (data) => sendWithdrawal(deps, data.withdrawalId)),
  );
  await every(boss, QUEUES.withdrawalReconcile, EVERY_MINUTE, async () => {
    const summary = await reconcileWithdrawals(deps, { olderThanSeconds: config.withdrawalReconcileAfterSeconds });
    if (summary.checked) logger.info(summary, 'withdrawals reconciled');
  });
  await enqueue(boss, null, QUEUES.withdrawalReconcile, {}); // what a crash left behind is settled now, not at the next minute
}
