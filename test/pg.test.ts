import test from 'ava';
import pg from 'pg';
import { createTestDatabase } from './support/db.ts';
import { createPgPool } from '../src/platform/pg.ts';
import { createLogger } from '../src/platform/logger.ts';
import { pgConnection } from '../src/platform/pg-ssl.ts';
import { MikroORM, ormConfig } from '../src/platform/db.ts';
import { statement } from '../src/platform/sql.ts';

const PID = statement('test.pid', 'select pg_backend_pid() as pid');
const ONE = statement('test.one', 'select 1 as one');
const TWO = statement('test.two', 'select 2 as two');
const SSL_OF = statement(
  'test.ssl_of',
  'select coalesce((select ssl from pg_stat_ssl where pid = pg_backend_pid()), false) as ssl',
);

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
    pool.tx(async ({ query }) => {
      const rows = await query<{ pid: number }>(PID);
      // The server ends this session while no statement of ours runs: the client hears it as an 'error' event.
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      for (;;) {
        const gone = await admin.query('select 1 from pg_stat_activity where pid = $1', [rows[0].pid]);
        if (gone.rowCount === 0) break;
      }
      await new Promise((resolve) => setImmediate(resolve));
      await query(ONE);
    }),
  );
  // the broken connection was discarded, not pooled
  t.deepEqual(await pool.query<{ one: number }>(ONE), [{ one: 1 }]);
  t.deepEqual(await pool.tx(({ query }) => query<{ two: number }>(TWO)), [{ two: 2 }]);
});

test('sslmode (URL or PGSSLMODE) maps to node-postgres TLS options as libpq reads it', (t) => {
  const base = 'postgresql://u:p@db.example.com:5432/app';
  t.deepEqual(pgConnection(base, {}), { url: base, ssl: false });
  t.deepEqual(pgConnection(`${base}?sslmode=require`, {}), { url: base, ssl: { rejectUnauthorized: false } });
  t.deepEqual(pgConnection(base, { PGSSLMODE: 'no-verify' }).ssl, { rejectUnauthorized: false });
  t.deepEqual(pgConnection(`${base}?sslmode=disable&application_name=x`, { PGSSLMODE: 'require' }), {
    url: `${base}?application_name=x`,
    ssl: false,
  });
  t.throws(() => pgConnection(`${base}?sslmode=sometimes`, {}), { message: /sslmode\/PGSSLMODE must be/ });
  // verify-full checks the chain (the system's CAs unless a root certificate is given) and the host name
  const full = pgConnection(`${base}?sslmode=verify-full`, { PGSSLMODE: 'disable' }).ssl;
  t.like(full, { rejectUnauthorized: true });
  t.false(full && 'ca' in full);
  t.is(typeof (full && full.checkServerIdentity), 'function');
  // verify-ca, like libpq, needs a CA of its own (with every public CA the chain alone would prove nothing)
  for (const env of [{}, { PGSSLROOTCERT: 'system' }])
    t.throws(() => pgConnection(`${base}?sslmode=verify-ca`, env), { message: /sslmode=verify-ca needs sslrootcert/ });
  t.throws(() => pgConnection(`${base}?sslmode=require&sslrootcert=system`, {}), {
    message: /sslmode=require needs sslrootcert/,
  });
});

// Against the test server (TLS or not): with sslmode=require every pool either talks TLS or is refused for lack of it;
// it never silently connects in plain text.
test('the ORM and the plain pools honour sslmode=require on a real connection', async (t) => {
  const url = await createTestDatabase();
  const required = `${url}${url.includes('?') ? '&' : '?'}sslmode=require`;
  const plain = createPgPool(url, 1, createLogger('silent', 'test'), 'test');
  t.false((await plain.query<{ ssl: boolean }>(SSL_OF))[0].ssl);
  await plain.close();

  const pool = createPgPool(required, 1, createLogger('silent', 'test'), 'test');
  const orm = await MikroORM.init(ormConfig(required, [], { discovery: { warnWhenNoEntities: false } }));
  t.teardown(async () => {
    await pool.close();
    await orm.close();
  });
  for (const run of [
    () => pool.query<{ ssl: boolean }>(SSL_OF).then((r) => r[0].ssl),
    () =>
      orm.em
        .fork()
        .execute(SSL_OF.text)
        .then((r) => r[0].ssl),
  ]) {
    try {
      t.true(await run());
    } catch (err) {
      t.regex((err as Error).message, /does not support SSL/);
    }
  }
});
