// Named (prepared) statements: planned once per connection, unless behind a transaction pooler.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from './config.ts';

/**
 * Named (prepared) statements. A statement sent with a name is parsed and planned once per connection and then only
 * bound and executed: the service's hot statements (pg-boss' fetch, insert and complete, the daemon's updates) are
 * planned in less time than they run, and on a busy machine PostgreSQL spent as much CPU planning as executing.
 * Only statements with parameters are named (their text is fixed, the values vary); a name is the hash of the text,
 * so one text is one name on every connection. Behind a pooler in transaction mode (DATABASE_POOL_MODE=transaction)
 * a statement prepared on one server connection may be executed on another: nothing is named there.
 */
export const canPrepare = (config: Pick<Config, 'databasePoolMode'>): boolean =>
  config.databasePoolMode !== 'transaction';

const MAX_NAMES = 2000; // distinct texts named per process; past it (texts built from input, a bug) statements go unnamed
const names = new Map<string, string>();

function statementName(text: string, values: readonly unknown[] | undefined): string | undefined {
  if (!values?.length) return undefined;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES)
    names.set(text, (name = `s${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`));
  return name;
}

// A statement as node-postgres takes it: named when it may be (`prepare`). `epoch` tells apart a text prepared again on
// a connection where its first preparation went stale (nameInTransactions).
export function statement(prepare: boolean, text: string, values: unknown[] | undefined, epoch = 0): pg.QueryConfig {
  const name = prepare ? statementName(text, values) : undefined;
  if (!name) return { text, values };
  return { name: epoch ? `${name}_${epoch}` : name, text, values };
}

// A prepared statement whose tables changed shape under it (a migration while this process runs) fails with this for
// as long as its connection lives: that connection is discarded and the statement sent again, unnamed.
export const planOutdated = (err: unknown): boolean =>
  (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String(err));

// pool.query, named when it may be (`prepare`). pg-pool discards a connection whose query failed, so a retry after an
// outdated plan runs on another connection.
export async function poolQuery(
  pool: pg.Pool,
  prepare: boolean,
  text: string,
  values: unknown[] | undefined,
): Promise<pg.QueryResult> {
  const named = statement(prepare, text, values);
  if (!named.name) return pool.query(named);
  try {
    return await pool.query(named);
  } catch (err) {
    if (planOutdated(err)) return pool.query(text, values);
    throw err;
  }
}

/**
 * A read on a hot path (authentication, a charge by id), outside any transaction, as a named statement on the ORM's
 * own pool: em.execute writes the values into the text, so PostgreSQL would parse and plan it on every call. `$n`
 * parameters; rows are parsed by the pool's type parsers, as em.execute's are.
 */
export async function hotRead<R>(em: EntityManager, prepare: boolean, text: string, values: unknown[]): Promise<R[]> {
  const pool = (await em.getConnection().getNativeClient()) as pg.Pool;
  return (await poolQuery(pool, prepare, text, values)).rows as R[];
}

/**
 * Named statements inside MikroORM's transactions. A `$n` statement sent through the bridge (`pgTx`, sql.ts: the
 * settlement's, the ledger's, an event's deliveries, pg-boss' inserts) is marked, and MikroORM's pool names the marked
 * texts on every connection it opens (given as the pool's `onPoolCreated`, db.ts; not behind a transaction pooler).
 * A marked text that went stale on a connection (a migration while this process runs) fails its transaction once, as
 * anything may; that connection then names it afresh (a new epoch), and the retry runs it planned anew.
 */
const marked = new Set<string>();

export function markNameable(text: string, values: readonly unknown[] | undefined): void {
  if (values?.length && marked.size < MAX_NAMES) marked.add(text);
}

type ClientQuery = (config: unknown, values?: unknown, callback?: unknown) => unknown;

export function nameInTransactions(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as ClientQuery;
    let epoch = 0;
    (client as { query: ClientQuery }).query = (config, values, callback) => {
      if (typeof config !== 'string' || !Array.isArray(values) || callback !== undefined || !marked.has(config))
        return query(config, values, callback);
      return (query(statement(true, config, values, epoch)) as Promise<pg.QueryResult>).catch((err: unknown) => {
        if (planOutdated(err)) epoch++;
        throw err;
      });
    };
  });
}
