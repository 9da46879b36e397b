import test from 'ava';
import { startTestApp, type TestApp } from './support/app.ts';
import { enqueueJoined, type Queue } from '../src/platform/queue.ts';

// enqueueJoined (the API's group commit of payment notifications) against a real PostgreSQL and pg-boss: concurrent
// callers share statements, each resolves only once its job is committed, and a failed statement fails exactly its own
// callers and writes none of their jobs.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

type Job = { n: number; note?: string };
async function jobsOf(queue: string) {
  return app.orm.em
    .fork()
    .execute<{ n: number; created_on: unknown }[]>(
      `select (data->>'n')::int as n, created_on from pgboss.job where name = ? order by 1`,
      [queue],
    );
}

test('sixty concurrent callers: every job committed, in far fewer statements than jobs', async (t) => {
  const queue = 'test.joined.burst' as Queue<Job>;
  await app.boss.createQueue(queue);
  await Promise.all(
    Array.from({ length: 60 }, (_, n) => enqueueJoined(app.boss, queue, [{ data: { n }, singletonKey: `k${n}` }])),
  );
  const rows = await jobsOf(queue);
  t.deepEqual(
    rows.map((r) => r.n),
    Array.from({ length: 60 }, (_, n) => n),
  );
  // created_on is the inserting transaction's time: the first caller went alone, the 59 that came meanwhile together
  const statements = new Set(rows.map((r) => String(r.created_on))).size;
  t.true(statements <= 2, `${statements} statements for 60 jobs`);
});

test('a statement that fails rejects every caller it carried and writes none of their jobs; the next one goes on', async (t) => {
  const queue = 'test.joined.failure' as Queue<Job>;
  await app.boss.createQueue(queue);
  const first = enqueueJoined(app.boss, queue, [{ data: { n: 1 } }]); // goes at once, alone
  // these three wait for it and go in one statement, which PostgreSQL refuses (jsonb has no \u0000)
  const joined = [
    enqueueJoined(app.boss, queue, [{ data: { n: 2 } }]),
    enqueueJoined(app.boss, queue, [{ data: { n: 3, note: 'nul \u0000' } }]),
    enqueueJoined(app.boss, queue, [{ data: { n: 4 } }, { data: { n: 5 } }]),
  ];
  await first;
  const outcomes = await Promise.allSettled(joined);
  t.deepEqual(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected', 'rejected'],
  );
  await enqueueJoined(app.boss, queue, [{ data: { n: 6 } }]);
  t.deepEqual(
    (await jobsOf(queue)).map((r) => r.n),
    [1, 6],
  );
});

test('no jobs is no statement and resolves at once', async (t) => {
  const queue = 'test.joined.empty' as Queue<Job>;
  await app.boss.createQueue(queue);
  await enqueueJoined(app.boss, queue, []);
  t.deepEqual(await jobsOf(queue), []);
});
