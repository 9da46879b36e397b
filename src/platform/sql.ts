// How the code reaches PostgreSQL: the paths, the bridge (pgTx) and the state tables' helpers.
import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type Db } from 'pg-boss';
import type { Query } from './pg.ts';
import { markNameable } from './prepared.ts';

/**
 * How the code reaches PostgreSQL, in one place. Two paths, one per kind of process, and a bridge:
 * - MikroORM, in the API, the worker and the CLI: `em.execute(sql, params)` with `?` placeholders (MikroORM inlines the
 *   values, escaped), and entities where they pay (a creation with createOnce, a find by id). Every `<module>.sql.ts`
 *   is written for it unless its header says otherwise.
 * - node-postgres, in the webhook daemon, which carries no ORM (its memory; apps/webhooks): `PgPool` (pg.ts) with `$1`
 *   placeholders bound by the server. The statements it shares with the API and the worker (webhooks.sql.ts: an event's
 *   deliveries are created in the transaction of the change that caused it) are written once, with `$1`.
 * - the bridge, `pgTx(em)`: a MikroORM transaction seen as a PgPool transaction, `{ query, jobs }`, over the same
 *   connection: `query` runs the `$1` statements, `jobs` is the pg-boss `db` that makes a job commit with the rows
 *   (`enqueue`, queue.ts).
 * Statements with `$1` parameters outside MikroORM are named (prepared once per connection, prepared.ts), and so are
 * the API's reads on every request (`hotRead`: the credential, a charge by id), sent on MikroORM's own pool, and the
 * `$1` statements sent through the bridge (the settlement's, the ledger's posting, pg-boss' inserts: prepared.ts
 * nameInTransactions).
 */
export function pgTx(em: EntityManager): { query: Query; jobs: Db } {
  const kysely = fromKysely(em.getKysely());
  const jobs: Db = {
    executeSql(text, values) {
      markNameable(text, values); // prepared once per connection (prepared.ts nameInTransactions)
      return kysely.executeSql(text, values);
    },
  };
  // pg-boss types its rows `any[]`; Query lets the caller name them
  return { query: jobs.executeSql as Query, jobs };
}

// A state table's transition: the statuses its guarded UPDATE may start from, and the one it sets.
export type Transition<S extends string> = { readonly from: readonly S[]; readonly to: S };

// Statuses as SQL literals, for a guarded UPDATE built from its state table (`set status = ${statuses([t.to])} …
// where status in (${statuses(t.from)})`): constants of the table, never input, and checked to be plain names.
export function statuses(list: readonly string[]): string {
  for (const s of list) if (!/^[A-Z_]+$/.test(s)) throw new Error(`not a status: ${s}`);
  return list.map((s) => `'${s}'`).join(', ');
}

// A PostgreSQL array literal for one bound parameter (`?::uuid[]`): MikroORM expands a JS array parameter into a
// list of parameters (for `in (?)`), so arrays meant for unnest()/any() travel as one literal instead.
export function pgArray(values: readonly (string | number | null)[]): string {
  const item = (v: string | number | null) => (v === null ? 'NULL' : `"${String(v).replace(/[\\"]/g, '\\$&')}"`);
  return `{${values.map(item).join(',')}}`;
}
