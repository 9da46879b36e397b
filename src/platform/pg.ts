// A plain node-postgres pool speaking the one SQL handle (sql.ts), for processes without the ORM (the webhook daemon).
import pg from 'pg';
import type { Db } from 'pg-boss';
import type { Logger } from './logger.ts';
import { pgConnection } from './pg-ssl.ts';
import { clientFor, foreignStatement, planOutdated } from './prepared.ts';
import type { Row, Sql, SqlTx, Statement } from './sql.ts';

// The handle of sql.ts on a pool of its own, and the pool's end.
export type PgPool = Sql & { close: () => Promise<void> };

/**
 * A plain node-postgres pool for processes that need no entities (the webhook daemon and the event streams stay small
 * without the ORM), as the handle every module speaks (sql.ts): `query`, `run`, `tx`. JS arrays bind as PostgreSQL
 * arrays. `prepare`: declared statements go named (prepared.ts NamingClient); false behind a pooler in transaction
 * mode. A statement outside a transaction that meets a stale plan (a migration while the process runs) is sent once
 * more: pg-pool discards the connection it failed on, and the connection it gets names it afresh.
 */
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

  async function once(s: Statement, values: readonly unknown[] = []): Promise<pg.QueryResult> {
    try {
      return await pool.query(s.text, values as unknown[]);
    } catch (err) {
      if (planOutdated(err)) return pool.query(s.text, values as unknown[]);
      throw err;
    }
  }

  async function tx<T>(work: (sql: SqlTx) => Promise<T>): Promise<T> {
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
    const send = (text: string, values: readonly unknown[] = []) => client.query(text, values as unknown[]);
    const jobs: Db = {
      executeSql(text, values) {
        foreignStatement(text, values); // pg-boss' insert, named too (prepared.ts)
        return send(text, values);
      },
    };
    const inTx: SqlTx = {
      query: async <R = Row>(s: Statement, values?: readonly unknown[]) => (await send(s.text, values)).rows as R[],
      run: async (s, values) => (await send(s.text, values)).rowCount ?? 0,
      tx: (inner) => inner(inTx), // already in one
      jobs,
    };
    try {
      await client.query('begin');
      const result = await work(inTx);
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
    query: async <R = Row>(s: Statement, values?: readonly unknown[]) => (await once(s, values)).rows as R[],
    run: async (s, values) => (await once(s, values)).rowCount ?? 0,
    tx,
    close: () => pool.end(),
  };
}
