// Operator commands of Pix Automático: run the day's jobs now.
import { OpsError, OpsUsageError, type Command } from '../platform/ops.ts';
import { isCalendarDate } from '../platform/dates.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import { runDay } from './recurring.daily.ts';

// An operator runs the day's Pix Automático jobs at once (the worker runs them hourly); with the sandbox, any day's.
export const recurringCommands: Command[] = [
  {
    name: 'recurring:run',
    summary: "the day's automatic charges and every expiry due by it (mandates, recurring charges), now; idempotent",
    flags: {
      date: {
        type: 'string',
        description: 'the São Paulo day to run (YYYY-MM-DD; default today); another day only with ACQUIRER=sandbox',
      },
    },
    async run({ em, config, boss, progress }, flags) {
      const today = saoPauloDate(new Date());
      const day = flags.date === undefined ? today : String(flags.date);
      if (!isCalendarDate(day)) throw new OpsUsageError('--date must be a date YYYY-MM-DD between 2000 and 2100');
      if (day !== today && config.acquirer !== 'sandbox')
        throw new OpsError(`--date ${day} is not today (${today}): another day only with ACQUIRER=sandbox`);
      progress(`recurring:run: ${day}`);
      const { created, expired } = await runDay({ config, boss: await boss(), clock: () => new Date() }, em, day);
      return { created, expired };
    },
  },
];
