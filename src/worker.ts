import type { Deps } from './deps.ts';
import { registerWithdrawals } from './withdrawals/withdrawals.worker.ts';
import { registerCharges } from './charges/charges.worker.ts';
import { registerCounters } from './platform/counters.ts';

// The worker process: talks to the acquirer, settles payments and runs scheduled jobs.
// Each domain exports a register function that attaches its queue handlers.
const registrations: ((deps: Deps) => Promise<void>)[] = [registerCharges, registerWithdrawals, registerCounters];

export async function startWorker(deps: Deps): Promise<void> {
  for (const register of registrations) await register(deps);
  deps.logger.info('worker ready');
}
