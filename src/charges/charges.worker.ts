import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { QUEUES, WORK_POLLING, settleEach, work } from '../platform/queue.ts';
import { expireCharges } from './charges.states.ts';

const BATCH = 10;
const EVERY_MINUTE = '* * * * *';

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
  await boss.work(QUEUES.chargesExpire, WORK_POLLING, async () => {
    const expired = await expireCharges(ctx, deps.orm.em.fork());
    if (expired) log.info({ expired }, 'charges expired');
  });
  await boss.schedule(QUEUES.chargesExpire, EVERY_MINUTE);
}
