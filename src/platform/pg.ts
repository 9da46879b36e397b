// A plain node-postgres pool, for processes without the ORM (the webhook daemon).
import pg from 'pg';
import type { Db } from 'pg-boss';
import type { Logger } from './logger.ts';
import { pgConnection } from './pg-ssl.ts';
import { clientFor, planOutdated, poolQuery, statement } from './prepared.ts';

export type Query = <R = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<{ rows: R[] }>;

// A plain node-postgres pool for processes that need no entities (the webhook daemon stays small without the ORM).
// JS arrays bind as PostgreSQL arrays here. `prepare`: statements with parameters are named (prepared.ts); false behind
// a pooler in transaction mode.
export type PgPool = {
  query: Query;
  // One transaction; `jobs` is the same transaction as a pg-boss `db` option, so a job commits or rolls back with the
  // rows.
  transaction: <T>(work: (query: Query, jobs: Db) => Promise<T>) => Promise<T>;
  close: () => Promise<void>;
};

export function createPgPool(
  connectionString: string,
  max: number,
  logger: Logger,
  name: string,
  prepare = false,
): PgPool {
  const { url, ssl } = pgConnection(connectionString);
  const pool = new pg.Pool({ connectionString: url, ssl, max, application_name: name, ...clientFor(prepare) });
  // An idle connection dropped by the server: the pool replaces it on the next checkout.
  pool.on('error', (err) => logger.warn({ err }, 'idle database connection lost'));

  async function transaction<T>(work: (query: Query, jobs: Db) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    // A checked-out client has no listener of the pool's: a connection lost between two statements (the server
    // restarted or crashed) would be an unhandled 'error' event and kill the process. The next statement fails instead.
    let lost: Error | undefined;
    const onError = (err: Error) => (lost ??= err);
    client.on('error', onError);
    const release = (err?: Error) => {
      client.off('error', onError);
      client.release(err);
    };
    const query: Query = (text, values) => client.query(statement(prepare, text, values).text, values) as never;
    try {
      await client.query('begin');
      const result = await work(query, { executeSql: query });
      await client.query('commit');
      release(lost);
      return result;
    } catch (err) {
      // A connection whose rollback fails is broken: release(err) discards it instead of pooling it.
      // So is one whose prepared statement went stale (its table changed shape): the next transaction gets another.
      await client.query('rollback').then(
        () => release(lost ?? (planOutdated(err) ? (err as Error) : undefined)),
        (e: Error) => release(e),
      );
      throw err;
    }
  }

  return {
    query: (text, values) => poolQuery(pool, prepare, text, values) as never,
    transaction,
    close: () => pool.end(),
  };
}
