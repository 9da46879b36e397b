// The worker's recurring-charge queue: a cobr's calls to the PSP (apipix).
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { QUEUES, WORK_POLLING, settleEach, work } from '../platform/queue.ts';

const BATCH = 10;

// The worker's recurring-charge calls to the PSP (apipix): register a cobr, cancel it, ask a retry; each idempotent at
// the PSP (by txid, by txid and date), so a job run twice asks twice for the same thing.
export async function registerRecurringCharges(deps: AcquirerDeps): Promise<void> {
  const { boss, acquirer } = deps;
  await work(
    boss,
    QUEUES.recurringChargeSync,
    { ...WORK_POLLING, batchSize: BATCH, burstWhenBatchFull: true, perJobResults: true },
    (jobs) =>
      settleEach(jobs, (data) =>
        data.op === 'create'
          ? acquirer.createRecurringCharge(data.request)
          : data.op === 'cancel'
            ? acquirer.cancelRecurringCharge(data.txid)
            : acquirer.retryRecurringCharge(data.txid, data.date),
      ),
  );
}
