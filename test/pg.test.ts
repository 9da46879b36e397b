import test from 'ava';
import pg from 'pg';
import { createTestDatabase } from './support/db.ts';
import { createPgPool } from '../src/platform/pg.ts';
import { createLogger } from '../src/platform/logger.ts';

// The webhook daemon's pool when PostgreSQL goes away in the middle of a transaction (found by `npm run chaos`: the
// daemon died of an unhandled 'error' event when the postmaster was killed).
test('a connection lost between two statements of a transaction fails the transaction, not the process', async (t) => {
  const url = await createTestDatabase();
  const pool = createPgPool(url, 2, createLogger('silent', 'test'), 'test');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  t.teardown(async () => {
    await admin.end();
    await pool.close();
  });

  await t.throwsAsync(
    pool.transaction(async (query) => {
      const { rows } = await query<{ pid: number }>('select pg_backend_pid() as pid');
      // The server ends this session while no statement of ours runs: the client hears it as an 'error' event.
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      for (;;) {
        const gone = await admin.query('select 1 from pg_stat_activity where pid = $1', [rows[0].pid]);
        if (gone.rowCount === 0) break;
      }
      await new Promise((resolve) => setImmediate(resolve));
      await query('select 1');
    }),
  );
  // the broken connection was discarded, not pooled
  t.deepEqual((await pool.query<{ one: number }>('select 1 as one')).rows, [{ one: 1 }]);
  t.deepEqual((await pool.transaction((query) => query<{ two: number }>('select 2 as two'))).rows, [{ two: 2 }]);
});
