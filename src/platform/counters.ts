// Append-only counters for the listings' totals: triggers, folding, and reads.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ormSql } from './sql.ts';
import { foldStatement, pageStatement } from './counters.sql.ts';

/**
 * Append-only counters: a listing's `total` is a sum over a few +n/-n rows kept by triggers in the writing transaction
 * (no counter row is ever locked, so concurrent writers of one merchant never queue on it), folded back into one row
 * per key every minute by the worker. `keys` are the counter's key columns, shared with the counted table.
 */
export type Counter = { table: string; keys: string };

/**
 * Folds each key's +n/-n rows into one row, so a read sums a minute of changes at most. One statement per table:
 * the rows it deletes are re-inserted as their sum, so the total of every key is the same before and after, and a
 * concurrent fold waits on the rows this one deletes and then skips them. Rows inserted meanwhile are left for later.
 */
export async function foldCounters(em: EntityManager, counters: readonly Counter[]): Promise<number> {
  let folded = 0;
  for (const { table, keys } of counters) {
    const rows = await ormSql(em).query<{ n: string }>(foldStatement({ table, keys }));
    folded += Number(rows[0].n);
  }
  return folded;
}

/**
 * The statement trigger that adds one +n/-n row per key to a counter for every insert or delete on `table`, over the
 * transition table (a bulk load adds one row per key, not per row). For an entity's `triggers`, so MikroORM's schema
 * diff knows it; the migrations create it.
 */
export function countTrigger(
  o: { table: string; counter: string; keys: string; name: string; fn: string; where?: string },
  event: 'insert' | 'delete',
) {
  const [rows, sign, ref] = event === 'insert' ? ['inserted', '', 'new'] : ['deleted', '-', 'old'];
  return {
    name: o.name,
    timing: 'after' as const,
    events: [event],
    forEach: 'statement' as const,
    expression:
      `create or replace function "${o.fn}"() returns trigger as $$ begin ` +
      `insert into "${o.counter}" (${o.keys}, "count") select ${o.keys}, ${sign}count(*) from ${rows}${o.where ? ` where ${o.where}` : ''} group by
          ${o.keys}; ` +
      `return null; end; $$ language plpgsql;\n` +
      `create trigger "${o.name}" after ${event} on "${o.table}" referencing ${ref} table as ${rows} ` +
      `for each statement execute function "${o.fn}"();`,
  };
}

/**
 * The three triggers that keep a `counter` of a table's rows per (merchant_id, status) exact: `countTrigger` for
 * inserts and deletes (only the rows that match `where`), and a row trigger that moves one count from a row's old
 * status to its new one (none when `skip`, a condition on `new`, holds). Names: `<counter>_<insert|delete|status>`.
 */
export function merchantStatusCounts(o: { table: string; counter: string; where?: string; skip?: string }) {
  const keys = '"merchant_id", "status"';
  const name = (event: string) => `${o.counter}_${event}`;
  const count = (event: 'insert' | 'delete') =>
    countTrigger(
      { table: o.table, counter: o.counter, keys, name: name(event), fn: `${name(event)}_fn`, where: o.where },
      event,
    );
  const status = name('status');
  return [
    count('insert'),
    count('delete'),
    {
      name: status,
      timing: 'after' as const,
      events: ['update' as const],
      forEach: 'row' as const,
      expression:
        `create or replace function "${status}_fn"() returns trigger as $$ begin ` +
        (o.skip ? `if ${o.skip} then return null; end if; ` : '') +
        `insert into "${o.counter}" (${keys}, "count") values (old."merchant_id", old."status", -1), (new."merchant_id", new."status", 1); ` +
        `return null; end; $$ language plpgsql;\n` +
        `create trigger "${status}" after update of "status" on "${o.table}" for each row when (old."status" is distinct from new."status") ` +
        `execute function "${status}_fn"();`,
    },
  ];
}

// A listing over `table` (alias `alias`), newest first: `columns` of each row, after optional `joins`. `rows`: a
// condition on the table's rows the listing keeps (the counter counts only those; a partial index serves the scan).
export type PageSpec = {
  table: string;
  alias: string;
  counter: Counter;
  columns: string;
  joins?: string;
  rows?: string;
};

/**
 * One page, newest first, in one statement: the total from the counter (never a count over the rows), the page's ids
 * from the (keys..., created_at desc, id desc) index alone (a deep OFFSET skips index entries, not table rows), then
 * only those rows. The total gates the scan, so a page past the end reads nothing; counter and rows share a snapshot.
 * `where` holds the key columns to filter on (undefined values are left out).
 */
export async function countedPage<R extends { id: string | null }>(
  em: EntityManager,
  spec: PageSpec,
  where: Record<string, unknown>,
  page: number,
  limit: number,
): Promise<{ total: number; rows: R[] }> {
  const filters = Object.entries(where).filter(([, v]) => v !== undefined);
  const values = filters.map(([, v]) => v);
  const offset = (page - 1) * limit;
  const rows = await ormSql(em).query<R & { total: string }>(
    pageStatement(
      spec,
      filters.map(([k]) => k),
    ),
    [...values, offset, limit],
  );
  return { total: Number(rows[0].total), rows: rows[0].id ? rows : [] }; // an empty page is one row with only the total
}
