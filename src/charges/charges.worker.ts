// The worker's charge queues: expire charges past their validity, cancel their cob at the acquirer.
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { EVERY_MINUTE, QUEUES, WORK_POLLING, every, settleEach, work } from '../platform/queue.ts';
import { expireCharges } from './charges.states.ts';

const BATCH = 10;

// The worker's charge duties: expire charges past their validity, and remove their cob at the acquirer.
export async function registerCharges(deps: AcquirerDeps): Promise<void> {
  const { boss, acquirer } = deps;
  const log = deps.logger.child({ module: 'charges' });
  const ctx = { ...deps, logger: log };
  await work(
    boss,
    QUEUES.chargeCancel,
    { ...WORK_POLLING, batchSize: BATCH, burstWhenBatchFull: true, perJobResults: true },
    (jobs) => settleEach(jobs, (data) => acquirer.cancelCharge(data.txid, data.due)),
  );
  await every(boss, QUEUES.chargesExpire, EVERY_MINUTE, async () => {
    const expired = await expireCharges(ctx, deps.orm.em.fork());
    if (expired) log.info({ expired }, 'charges expired');
  });
}
