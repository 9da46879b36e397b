import test from 'ava';
import { createTestDatabase } from './support/db.ts';
import { createPgPool, type PgPool } from '../src/platform/pg.ts';
import { createLogger } from '../src/platform/logger.ts';
import { createBoss } from '../src/platform/queue.ts';
import { createOrm } from '../src/database.ts';
import { pgTx } from '../src/platform/sql.ts';
import { planOutdated } from '../src/platform/prepared.ts';
import type { EntityManager } from '@mikro-orm/postgresql';

// Named statements (src/platform/prepared.ts) against a real PostgreSQL: prepared once per connection when allowed,
// never behind a transaction pooler, and a table changing shape under a prepared statement (a migration while the
// process runs) costs at most the one transaction that met it.
const logger = createLogger('silent', 'test');

async function pool(t: { teardown: (fn: () => Promise<void>) => void }, prepare: boolean): Promise<PgPool> {
  const url = await createTestDatabase();
  const p = createPgPool(url, 1, logger, 'test', prepare); // one connection: every statement meets the same session
  t.teardown(() => p.close());
  await p.query('create table shapes (id int primary key, a text)');
  await p.query(`insert into shapes values (1, 'um'), (2, 'dois')`);
  return p;
}

const prepared = async (p: PgPool) =>
  (await p.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements')).rows[0].n;

test('statements with parameters are prepared once per connection; without parameters, never', async (t) => {
  const p = await pool(t, true);
  for (let i = 0; i < 3; i++)
    t.deepEqual((await p.query('select a from shapes where id = $1', [1])).rows, [{ a: 'um' }]);
  await p.transaction((query) => query('select a from shapes where id = $1', [2]));
  t.is(await prepared(p), 1);
  await p.query('select a from shapes where id = $1 or id = $2', [1, 2]);
  t.is(await prepared(p), 2);
  // a text without parameters (its values written in: one text each), never
  for (let i = 0; i < 30; i++) await p.query(`select a from shapes where id = ${i % 3}`);
  t.is(await prepared(p), 2);
});

test('behind a transaction pooler (prepare false) nothing is prepared', async (t) => {
  const p = await pool(t, false);
  t.deepEqual((await p.query('select a from shapes where id = $1', [2])).rows, [{ a: 'dois' }]);
  await p.transaction((query) => query('select a from shapes where id = $1', [1]));
  t.is(await prepared(p), 0);
});

test('a table that changed shape under a prepared statement: the query answers with the new shape', async (t) => {
  const p = await pool(t, true);
  const text = 'select * from shapes where id = $1';
  t.deepEqual((await p.query(text, [1])).rows, [{ id: 1, a: 'um' }]);
  await p.query('alter table shapes add column b int default 7');
  // PostgreSQL refuses the stale statement ("cached plan must not change result type"): sent again, unnamed
  t.deepEqual((await p.query(text, [1])).rows, [{ id: 1, a: 'um', b: 7 }]);
  t.deepEqual((await p.query(text, [2])).rows, [{ id: 2, a: 'dois', b: 7 }]);
});

test('in a transaction, a stale prepared statement fails that transaction only; the next one runs', async (t) => {
  const p = await pool(t, true);
  const text = 'select * from shapes where id = $1';
  await p.transaction((query) => query(text, [1]));
  await p.query('alter table shapes add column b int default 7');
  const failed = await t.throwsAsync(p.transaction((query) => query(text, [1])));
  t.regex(failed.message, /cached plan must not change result type/);
  // its connection was discarded with it: the next transaction prepares the statement afresh
  const { rows } = await p.transaction((query) => query(text, [2]));
  t.deepEqual(rows, [{ id: 2, a: 'dois', b: 7 }]);
});

test("pg-boss' statements go prepared: a job sent, fetched and completed", async (t) => {
  const url = await createTestDatabase();
  const boss = await createBoss(url, logger, { prepare: true });
  t.teardown(() => boss.stop({ graceful: false }));
  await boss.createQueue('test.prepared');
  const id = await boss.send('test.prepared', { n: 1 });
  const [job] = await boss.fetch<{ n: number }>('test.prepared');
  t.is(job.id, id!);
  t.deepEqual(job.data, { n: 1 });
  await boss.complete('test.prepared', job.id);
  t.is((await boss.getJobById('test.prepared', job.id))?.state, 'completed');
  // run one after the other, they met one connection of pg-boss' pool, which now holds them prepared
  const { rows } = (await boss
    .getDb()
    .executeSql('select count(*)::int as n from pg_prepared_statements where statement ~ $1', ['pgboss'])) as {
    rows: { n: number }[];
  };
  t.true(rows[0].n >= 3, `${rows[0].n} pg-boss statements prepared`);
});

// The bridge (pgTx): `$n` statements inside MikroORM's transactions (the settlement, the ledger, pg-boss' inserts).
async function orm(t: { teardown: (fn: () => Promise<void>) => void }, prepare: boolean) {
  const url = await createTestDatabase();
  const o = await createOrm(url, { pool: { min: 0, max: 1 } }, prepare); // one connection, as above
  t.teardown(() => o.close());
  await o.em.fork().execute('create table shapes (id int primary key, a text)');
  await o.em.fork().execute(`insert into shapes values (1, 'um'), (2, 'dois')`);
  return o;
}
const preparedIn = async (em: EntityManager) =>
  (await em.execute<{ n: number }[]>('select count(*)::int as n from pg_prepared_statements'))[0].n;

test('a statement sent through pgTx in a MikroORM transaction is prepared once per connection', async (t) => {
  const o = await orm(t, true);
  for (let i = 1; i <= 3; i++)
    await o.em.fork().transactional(async (tx) => {
      t.deepEqual((await pgTx(tx).query('select a from shapes where id = $1', [i % 2 ? 1 : 2])).rows, [
        { a: i % 2 ? 'um' : 'dois' },
      ]);
      t.is(await preparedIn(tx), 1);
    });
  // MikroORM's own statements (values written into the text) are not
  await o.em.fork().transactional((tx) => tx.execute('select a from shapes where id = ?', [1]));
  t.is(await preparedIn(o.em.fork()), 1);
  const off = await orm(t, false);
  await off.em.fork().transactional((tx) => pgTx(tx).query('select a from shapes where id = $1', [1]));
  t.is(await preparedIn(off.em.fork()), 0);
});

test('through pgTx, a stale prepared statement fails its transaction once; the next one prepares it afresh', async (t) => {
  const o = await orm(t, true);
  const read = () =>
    o.em.fork().transactional(async (tx) => (await pgTx(tx).query('select * from shapes where id = $1', [1])).rows);
  t.deepEqual(await read(), [{ id: 1, a: 'um' }]);
  await o.em.fork().execute('alter table shapes add column b int');
  const err = await t.throwsAsync(read());
  t.true(planOutdated(err));
  t.deepEqual(await read(), [{ id: 1, a: 'um', b: null }]);
  t.deepEqual(await read(), [{ id: 1, a: 'um', b: null }]);
});
