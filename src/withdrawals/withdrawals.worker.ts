import type { Deps } from '../deps.ts';
import { QUEUES, settleEach } from '../platform/queue.ts';
import { workSandboxTransfers } from '../acquirer/sandbox.ts';
import { applyTransferOutcome, reconcileWithdrawals, sendWithdrawal } from './withdrawals.outcomes.ts';
import type { SendJob } from './withdrawals.service.ts';

export const RECONCILE_CRON = '* * * * *';
const SEND_BATCH = 10;

// Worker side of withdrawals: send each one to the acquirer, and reconcile the stuck ones every minute and at start.
export async function registerWithdrawals(deps: Deps): Promise<void> {
  const { boss, config, logger } = deps;
  // Batches + burst: a wave of withdrawals is drained at once, not one per NOTIFY (the rest would wait for the 30 s poll).
  await boss.work<SendJob>(QUEUES.withdrawalSend, { batchSize: SEND_BATCH, burstWhenBatchFull: true, perJobResults: true },
    (jobs) => settleEach(jobs, (data) => sendWithdrawal(deps, data.withdrawalId)));
  await boss.work(QUEUES.withdrawalReconcile, async () => {
    const summary = await reconcileWithdrawals(deps, { olderThanSeconds: config.withdrawalReconcileAfterSeconds });
    if (summary.checked) logger.info(summary, 'withdrawals reconciled');
  });
  await boss.schedule(QUEUES.withdrawalReconcile, RECONCILE_CRON);
  await boss.send(QUEUES.withdrawalReconcile, {}); // what a crash left behind is settled now, not at the next minute
  if (config.acquirer === 'sandbox') {
    await workSandboxTransfers(deps, (withdrawalId, result) => applyTransferOutcome(deps, withdrawalId, result), settleEach);
  }
}
