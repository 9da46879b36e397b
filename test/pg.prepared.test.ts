import test from 'ava';
import { createTestDatabase } from './support/db.ts';
import { createPgPool, type PgPool } from '../src/platform/pg.ts';
import { createLogger } from '../src/platform/logger.ts';
import { createBoss } from '../src/platform/queue.ts';
import { createOrm } from '../src/database.ts';
import { ormSql, statement } from '../src/platform/sql.ts';
import { planOutdated } from '../src/platform/prepared.ts';

// Named statements (src/platform/prepared.ts) against a real PostgreSQL: every declared statement prepared once per
// connection when allowed, on both handles (the pool's and ormSql's), never behind a transaction pooler; pg-boss' own
// statements too; and a table changing shape under a prepared statement (a migration while the process runs) costs at
// most the one transaction that met it.
const logger = createLogger('silent', 'test');

const CREATE = statement('test.prepared_create', 'create table shapes (id int primary key, a text)');
const FILL = statement('test.prepared_fill', `insert into shapes values (1, 'um'), (2, 'dois')`);
const ALTER = statement('test.prepared_alter', 'alter table shapes add column b int default 7');
const BY_ID = statement('test.prepared_by_id', 'select a from shapes where id = $1');
const EITHER = statement('test.prepared_either', 'select a from shapes where id = $1 or id = $2');
const ALL_BY_ID = statement('test.prepared_all_by_id', 'select * from shapes where id = $1');
const PREPARED = statement(
  'test.prepared_count',
  `select count(*)::int as n from pg_prepared_statements where name like 'test.prepared%'`,
);
const PGBOSS_PREPARED = statement(
  'test.prepared_pgboss',
  `select count(*)::int as n from pg_prepared_statements where statement ~ 'pgboss'`,
);

async function pool(t: { teardown: (fn: () => Promise<void>) => void }, prepare: boolean): Promise<PgPool> {
  const url = await createTestDatabase();
  const p = createPgPool(url, 1, logger, 'test', prepare); // one connection: every statement meets the same session
  t.teardown(() => p.close());
  await p.run(CREATE);
  await p.run(FILL);
  return p;
}

// the declared statements of this file prepared on the connection (the counting statement itself included)
const prepared = async (p: Pick<PgPool, 'query'>) => (await p.query<{ n: number }>(PREPARED))[0].n;

test('a declared statement is prepared once per connection, under its name', async (t) => {
  const p = await pool(t, true);
  const base = await prepared(p); // create, fill, the count
  for (let i = 0; i < 3; i++) t.deepEqual(await p.query(BY_ID, [1]), [{ a: 'um' }]);
  await p.tx(({ query }) => query(BY_ID, [2]));
  t.is(await prepared(p), base + 1);
  await p.query(EITHER, [1, 2]);
  t.is(await prepared(p), base + 2);
});

test('behind a transaction pooler (prepare false) nothing is prepared', async (t) => {
  const p = await pool(t, false);
  t.deepEqual(await p.query(BY_ID, [2]), [{ a: 'dois' }]);
  await p.tx(({ query }) => query(BY_ID, [1]));
  t.is(await prepared(p), 0);
});

test('a table that changed shape under a prepared statement: the query answers with the new shape', async (t) => {
  const p = await pool(t, true);
  t.deepEqual(await p.query(ALL_BY_ID, [1]), [{ id: 1, a: 'um' }]);
  await p.run(ALTER);
  // PostgreSQL refuses the stale statement ("cached plan must not change result type"): sent again on another name
  t.deepEqual(await p.query(ALL_BY_ID, [1]), [{ id: 1, a: 'um', b: 7 }]);
  t.deepEqual(await p.query(ALL_BY_ID, [2]), [{ id: 2, a: 'dois', b: 7 }]);
});

test('in a transaction, a stale prepared statement fails that transaction only; the next one runs', async (t) => {
  const p = await pool(t, true);
  await p.tx(({ query }) => query(ALL_BY_ID, [1]));
  await p.run(ALTER);
  const failed = await t.throwsAsync(p.tx(({ query }) => query(ALL_BY_ID, [1])));
  t.true(planOutdated(failed));
  // its connection was discarded with it: the next transaction prepares the statement afresh
  t.deepEqual(await p.tx(({ query }) => query(ALL_BY_ID, [2])), [{ id: 2, a: 'dois', b: 7 }]);
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
  const { rows } = (await boss.getDb().executeSql(PGBOSS_PREPARED.text)) as { rows: { n: number }[] };
  t.true(rows[0].n >= 3, `${rows[0].n} pg-boss statements prepared`);
});

// ormSql: the same handle on MikroORM's connection, inside its transactions (the settlement, the ledger, the outbox).
async function orm(t: { teardown: (fn: () => Promise<void>) => void }, prepare: boolean) {
  const url = await createTestDatabase();
  const o = await createOrm(url, { pool: { min: 0, max: 1 } }, prepare); // one connection, as above
  t.teardown(() => o.close());
  await ormSql(o.em.fork()).run(CREATE);
  await ormSql(o.em.fork()).run(FILL);
  return o;
}

test('through ormSql, in a MikroORM transaction or not, a declared statement is prepared once per connection', async (t) => {
  const o = await orm(t, true);
  const base = await prepared(ormSql(o.em.fork()));
  for (let i = 1; i <= 3; i++)
    await o.em.fork().transactional(async (tx) => {
      t.deepEqual(await ormSql(tx).query(BY_ID, [i % 2 ? 1 : 2]), [{ a: i % 2 ? 'um' : 'dois' }]);
      t.is(await prepared(ormSql(tx)), base + 1);
    });
  // MikroORM's own statements (values written into the text) are not
  await o.em.fork().transactional((tx) => tx.execute('select a from shapes where id = ?', [1]));
  t.is(await prepared(ormSql(o.em.fork())), base + 1);
  const off = await orm(t, false);
  await off.em.fork().transactional((tx) => ormSql(tx).query(BY_ID, [1]));
  t.is(await prepared(ormSql(off.em.fork())), 0);
});

test('through ormSql, a stale prepared statement fails its transaction once; the next one prepares it afresh', async (t) => {
  const o = await orm(t, true);
  const read = () => o.em.fork().transactional((tx) => ormSql(tx).query(ALL_BY_ID, [1]));
  t.deepEqual(await read(), [{ id: 1, a: 'um' }]);
  await ormSql(o.em.fork()).run(statement('test.prepared_alter_null', 'alter table shapes add column b int'));
  const err = await t.throwsAsync(read());
  t.true(planOutdated(err));
  t.deepEqual(await read(), [{ id: 1, a: 'um', b: null }]);
  t.deepEqual(await read(), [{ id: 1, a: 'um', b: null }]);
});

test('through ormSql outside a transaction, a stale prepared statement is sent once more and answers', async (t) => {
  const o = await orm(t, true);
  const read = (id: number) => ormSql(o.em.fork()).query(ALL_BY_ID, [id]);
  t.deepEqual(await read(1), [{ id: 1, a: 'um' }]);
  await ormSql(o.em.fork()).run(ALTER);
  // the one connection holds the old plan: PostgreSQL refuses it, the handle sends the text again on a fresh name
  t.deepEqual(await read(1), [{ id: 1, a: 'um', b: 7 }]);
  t.deepEqual(await read(2), [{ id: 2, a: 'dois', b: 7 }]);
});
