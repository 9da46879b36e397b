import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../deps.ts';
import { QUEUES } from './queue.ts';

// The append-only counters and the columns that key them (see ChargeCount and WithdrawalCount).
const COUNTERS = [
  { table: 'charge_counts', keys: 'merchant_id, status' },
  { table: 'withdrawal_counts', keys: 'merchant_id' },
] as const;

/**
 * Folds each key's +n/-n rows into one row, so a read sums a minute of changes at most. One statement per table:
 * the rows it deletes are re-inserted as their sum, so the total of every key is the same before and after, and a
 * concurrent fold waits on the rows this one deletes and then skips them. Rows inserted meanwhile are left for later.
 */
export async function foldCounters(em: EntityManager): Promise<number> {
  let folded = 0;
  for (const { table, keys } of COUNTERS) {
    const rows = await em.execute<{ n: string }[]>(
      `with folded as (
         delete from ${table} where (${keys}) in (select ${keys} from ${table} group by ${keys} having count(*) > 1)
         returning ${keys}, count),
       summed as (insert into ${table} (${keys}, count) select ${keys}, sum(count) from folded group by ${keys} returning 1)
       select (select count(*) from folded) as n`,
    );
    folded += Number(rows[0].n);
  }
  return folded;
}

/**
 * The statement trigger that adds one +n/-n row per key to a counter for every insert or delete on `table`, over the
 * transition table (a bulk load adds one row per key, not per row). For an entity's `triggers`, so MikroORM's schema
 * diff knows it; the migrations create it.
 */
export function countTrigger(o: { table: string; counter: string; keys: string; name: string; fn: string }, event: 'insert' | 'delete') {
  const [rows, sign, ref] = event === 'insert' ? ['inserted', '', 'new'] : ['deleted', '-', 'old'];
  return {
    name: o.name,
    timing: 'after' as const,
    events: [event],
    forEach: 'statement' as const,
    expression: `create or replace function "${o.fn}"() returns trigger as $$ begin `
      + `insert into "${o.counter}" (${o.keys}, "count") select ${o.keys}, ${sign}count(*) from ${rows} group by ${o.keys}; `
      + `return null; end; $$ language plpgsql;\n`
      + `create trigger "${o.name}" after ${event} on "${o.table}" referencing ${ref} table as ${rows} `
      + `for each statement execute function "${o.fn}"();`,
  };
}

export const FOLD_CRON = '* * * * *';

// Worker: fold the counters every minute.
export async function registerCounters({ orm, boss, logger }: Deps): Promise<void> {
  await boss.work(QUEUES.countersFold, async () => {
    const folded = await foldCounters(orm.em.fork());
    if (folded) logger.debug({ folded }, 'counters folded');
  });
  await boss.schedule(QUEUES.countersFold, FOLD_CRON);
}
