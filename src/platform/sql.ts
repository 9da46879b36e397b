// How the code speaks to PostgreSQL: named `$n` statements run through one handle, and the state tables' transitions.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from 'pg-boss';
import { foreignStatement, planOutdated, registerStatement } from './prepared.ts';

/**
 * One dialect. Every statement is a constant `{ name, text }` declared with `statement()` in its module's `*.sql.ts`,
 * written with `$1` placeholders that PostgreSQL binds (a JS array binds as a PostgreSQL array: `= any($1::uuid[])`,
 * `unnest($1::int[])`; an object or an array meant as json is passed `JSON.stringify`ed), and run through one handle,
 * `Sql`: `query` (the rows), `run` (the rows it changed) and `tx` (a transaction, whose handle also carries `jobs`,
 * the pg-boss `db` that makes a job commit with the rows: queue.ts `enqueue`). Two handles, one per kind of process:
 * - `ormSql(em)`, on MikroORM's connection, in the API, the worker and the CLI: inside `em`'s transaction when it is in
 *   one, so statements and entities (a creation with createOnce, a find by id) commit together;
 * - `createPgPool` (pg.ts), a plain node-postgres pool, in the webhook daemon and the event streams, which carry no
 *   ORM (their memory).
 * Every declared statement goes named (prepared once per connection, prepared.ts) unless behind a transaction pooler.
 * No code outside `*.sql.ts` writes SQL, and nothing but this file and pg.ts calls a driver (eslint `local/sql-home`).
 */
export type Statement = { readonly name: string; readonly text: string };

// Declares a statement: its name is its prepared statement's on every connection, and must be unique.
export function statement(name: string, text: string): Statement {
  registerStatement(name, text);
  return { name, text };
}

export type Row = Record<string, unknown>;

export type Sql = {
  // The rows the statement returned.
  query: <R = Row>(s: Statement, values?: readonly unknown[]) => Promise<R[]>;
  // How many rows the statement inserted, updated or deleted.
  run: (s: Statement, values?: readonly unknown[]) => Promise<number>;
  // One transaction (or the one already open: `work` runs inside it).
  tx: <T>(work: (sql: SqlTx) => Promise<T>) => Promise<T>;
};

// A handle inside a transaction: `jobs` is that transaction as pg-boss' `db`.
export type SqlTx = Sql & { readonly jobs: Db };

/**
 * The handle on MikroORM's connection: `em`'s transaction when it is in one (statements, entities and jobs commit
 * together), else the ORM's pool (a statement each). Rows are parsed by the pool's type parsers, as the ORM's are.
 */
export function ormSql(em: EntityManager): SqlTx {
  // a raw query as Kysely compiles one (what CompiledQuery.raw builds, and pg-boss' own fromKysely sends)
  const exec = (text: string, values: readonly unknown[] = []) =>
    em.getKysely().executeQuery<Row>({
      sql: text,
      parameters: [...values],
      query: { kind: 'RawNode' } as never,
      queryId: { queryId: 'pix' },
    });
  // the driver's error as MikroORM's exception (UniqueConstraintViolationException, DeadlockException…), as the ORM's
  // own statements throw it, its code and fields kept: createOnce and transactional tell them apart by class. Outside
  // a transaction, a statement that met a stale plan (a migration while the process runs) is sent once more, as pg.ts
  // does: its connection names the text afresh (prepared.ts). Inside one, the transaction fails and is retried whole.
  const ours = async (s: Statement, values: readonly unknown[] | undefined) => {
    try {
      return await exec(s.text, values);
    } catch (err) {
      if (planOutdated(err) && !em.isInTransaction())
        try {
          return await exec(s.text, values);
        } catch (again) {
          throw em.getDriver().convertException(again as Error);
        }
      throw em.getDriver().convertException(err as Error);
    }
  };
  return {
    query: async <R = Row>(s: Statement, values?: readonly unknown[]) => (await ours(s, values)).rows as R[],
    run: async (s, values) => Number((await ours(s, values)).numAffectedRows ?? 0n),
    tx: (work) => em.transactional((tx) => work(ormSql(tx))),
    jobs: {
      async executeSql(text, values) {
        foreignStatement(text, values); // pg-boss' insert, named too (prepared.ts)
        return { rows: [...(await exec(text, values)).rows] };
      },
    },
  };
}

/**
 * A state table's transition: the statuses its guarded UPDATE may start from, the one it sets, and the event it
 * records (one of the nine, or the module's own) when it has one (`null`: none). Every status change of the service is a row of its
 * table's transitions (`<module>.states.ts` or `transitions.ts`); its statement is written from the row
 * (`set status = ${to(t)} … where status in (${from(t)})`), never with a status of its own (test/transitions.test.ts).
 */
export type Transition<S extends string, E extends string = string> = {
  readonly from: readonly S[];
  readonly to: S;
  readonly event?: E | null;
};

// Statuses as SQL literals: constants of the tables, never input, and checked to be plain names.
export function statuses(list: readonly string[]): string {
  for (const s of list) if (!/^[A-Z_]+$/.test(s)) throw new Error(`not a status: ${s}`);
  return list.map((s) => `'${s}'`).join(', ');
}

// The status a transition sets, and the ones it starts from, as SQL literals.
export const to = (t: Transition<string>): string => statuses([t.to]);
export const from = (t: Transition<string>): string => statuses(t.from);
