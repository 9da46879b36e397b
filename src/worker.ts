// The worker process' composition: every module's queues and schedules registered.
import type { Deps } from './deps.ts';
import { EVERY_MINUTE, QUEUES, every, settleEach } from './platform/queue.ts';
import { foldCounters } from './platform/counters.ts';
import { workSandboxTransfers } from './acquirer/sandbox.ts';
import { registerPayments } from './payments/payments.worker.ts';
import { registerRefunds } from './refunds/refunds.worker.ts';
import { registerCharges } from './charges/charges.worker.ts';
import { CHARGE_PAGE } from './charges/charges.sql.ts';
import { registerRecurringCharges } from './recurring/recurring-charges.worker.ts';
import { RECURRING_CHARGE_PAGE } from './recurring/recurring-charges.sql.ts';
import { registerWithdrawals } from './withdrawals/withdrawals.worker.ts';
import { registerInfractions } from './infractions/infractions.worker.ts';
import { registerEvents } from './events/events.worker.ts';
import { registerRecurring } from './recurring/recurring.worker.ts';
import { registerMandates } from './recurring/mandates.worker.ts';
import { registerRecurringPsp } from './recurring/recurring.poll.ts';
import { MANDATE_PAGE } from './recurring/mandates.sql.ts';
import { EVENT_PAGE } from './events/events.sql.ts';
import { WITHDRAWAL_PAGE } from './withdrawals/withdrawals.sql.ts';
import { applyTransferOutcome } from './withdrawals/withdrawals.states.ts';
import { processMetrics, type Registry } from './platform/metrics.ts';
import { paymentMetrics } from './payments/payments.metrics.ts';

// The listing counters the worker folds every minute.
const COUNTERS = [
  CHARGE_PAGE.counter,
  WITHDRAWAL_PAGE.counter,
  EVENT_PAGE.counter,
  MANDATE_PAGE.counter,
  RECURRING_CHARGE_PAGE.counter,
];

async function registerCounters({ orm, boss, logger }: Deps): Promise<void> {
  await every(boss, QUEUES.countersFold, EVERY_MINUTE, async () => {
    const folded = await foldCounters(orm.em.fork(), COUNTERS);
    if (folded) logger.debug({ folded }, 'counters folded');
  });
}

// The sandbox acquirer's own asynchronous side: its transfers' outcomes, reported as a real acquirer's would be.
async function registerSandbox(deps: Deps): Promise<void> {
  if (deps.config.acquirer !== 'sandbox') return;
  await workSandboxTransfers(
    deps,
    (withdrawalId, result) => applyTransferOutcome(deps, withdrawalId, result),
    settleEach,
  );
}

// The worker process: talks to the acquirer, settles payments and runs scheduled jobs.
const registrations: ((deps: Deps, registry: Registry | null) => Promise<void>)[] = [
  (deps, registry) => registerPayments(deps, registry ? paymentMetrics(registry) : undefined),
  registerRefunds,
  registerCharges,
  registerRecurringCharges,
  registerWithdrawals,
  registerCounters,
  registerSandbox,
  registerInfractions,
  registerEvents,
  registerRecurring,
  registerMandates,
  registerRecurringPsp,
];

export async function startWorker(deps: Deps): Promise<void> {
  const registry = await processMetrics(deps.config, deps.boss, deps.logger);
  for (const register of registrations) await register(deps, registry);
  deps.logger.info('worker ready');
}
