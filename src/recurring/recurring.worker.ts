// The worker's hourly Pix Automático run: the day's automatic charges and expiries.
import type { Services } from '../platform/services.ts';
import { QUEUES, every } from '../platform/queue.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import { runDay } from './recurring.daily.ts';

// Hourly at minute 5 of São Paulo's clock: a run finds nothing to do once the day's work is done (runDay is
// idempotent), so the later runs only catch what an earlier one could not (a worker down, a mandate approved since).
// A run missed while no worker was up is sent once when one comes back.
const HOURLY = '5 * * * *';
const SCHEDULE = { tz: 'America/Sao_Paulo', missed: 'once' } as const;

// The worker's Pix Automático duties: the day's automatic charges and expiries.
export async function registerRecurring(deps: Services): Promise<void> {
  const { boss, orm } = deps;
  const log = deps.logger.child({ module: 'recurring' });
  await every(
    boss,
    QUEUES.recurringDaily,
    HOURLY,
    async () => {
      const day = saoPauloDate(deps.clock());
      const done = await runDay(deps, orm.em.fork(), day);
      if (done.created || done.expired) log.info({ day, ...done }, 'recurring charges created and expiries');
    },
    SCHEDULE,
  );
}
