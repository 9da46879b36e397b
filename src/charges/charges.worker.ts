import type { Services } from '../platform/services.ts';
import type { Acquirer } from '../acquirer/acquirer.ts';
import { QUEUES, WORK_POLLING, settleEach } from '../platform/queue.ts';
import { expireCharges, type CancelJob } from './charges.states.ts';

type Deps = Services & { acquirer: Acquirer };

const BATCH = 10;
const EVERY_MINUTE = '* * * * *';

// The worker's charge duties: expire charges past their validity, and remove their cob at the acquirer.
export async function registerCharges(deps: Deps): Promise<void> {
  const { boss, acquirer } = deps;
  const log = deps.logger.child({ module: 'charges' });
  const ctx = { ...deps, logger: log };
  await boss.work<CancelJob>(
    QUEUES.chargeCancel,
    { ...WORK_POLLING, batchSize: BATCH, burstWhenBatchFull: true, perJobResults: true },
    (jobs) => settleEach(jobs, (data) => acquirer.cancelCharge(data.txid)),
  );
  await boss.work(QUEUES.chargesExpire, WORK_POLLING, async () => {
    const expired = await expireCharges(ctx, deps.orm.em.fork());
    if (expired) log.info({ expired }, 'charges expired');
  });
  await boss.schedule(QUEUES.chargesExpire, EVERY_MINUTE);
}
