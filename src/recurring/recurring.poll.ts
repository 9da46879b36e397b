import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { QUEUES, WORK_POLLING, settleEach, work } from '../platform/queue.ts';
import { applyCallback, applyMandate, applyRecurringCharge, type Applied } from './recurring.callbacks.ts';

const EVERY_MINUTE = '* * * * *';
const BATCH = 10;

/**
 * The worker's Pix Automático duties with a PSP (ACQUIRER=apipix): each rec or cobr a callback named is asked about
 * and applied; every minute the recs and cobrs the PSP changed within the reconciliation window
 * (APIPIX_RECONCILE_WINDOW_SECONDS, GET /v2/rec and GET /v2/cobr) are applied too, for the callbacks that never came.
 * Both go through the same idempotent use cases, so finding a change twice does nothing twice.
 */
export async function registerRecurringPsp(deps: AcquirerDeps): Promise<void> {
  if (!deps.config.apipix) return;
  const log = deps.logger.child({ module: 'recurring' });
  const ctx = { ...deps, logger: log };
  const options = { ...WORK_POLLING, batchSize: BATCH, burstWhenBatchFull: true, perJobResults: true } as const;
  await work(deps.boss, QUEUES.recurringCallback, options, (jobs) =>
    settleEach(jobs, async (job) => {
      const outcome = await applyCallback(ctx, deps.orm.em.fork(), job);
      if (outcome !== 'applied') log.warn({ job, outcome }, 'PSP callback about something this service does not have');
    }),
  );
  const windowMs = deps.config.apipix.reconcileWindowSeconds * 1000;
  await deps.boss.work(QUEUES.recurringPoll, WORK_POLLING, async () => {
    const counts = await pollRecurring(ctx, new Date(Date.now() - windowMs), new Date());
    log.debug(counts, 'recurring polled');
  });
  await deps.boss.schedule(QUEUES.recurringPoll, EVERY_MINUTE);
}

// Everything the PSP changed in [from, to), applied; the counts of each outcome.
export async function pollRecurring(deps: AcquirerDeps, from: Date, to: Date): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const count = (kind: string, a: Applied) => (counts[`${kind}.${a}`] = (counts[`${kind}.${a}`] ?? 0) + 1);
  for await (const m of deps.acquirer.mandatesBetween(from, to))
    count('mandates', await applyMandate(deps, deps.orm.em.fork(), m));
  for await (const c of deps.acquirer.recurringChargesBetween(from, to))
    count('recurringCharges', await applyRecurringCharge(deps, deps.orm.em.fork(), c));
  return counts;
}
