import test, { type ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { startTestApp, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { insertAutoMandates } from './recurring.daily.helpers.ts';
import { waitUntil } from './support/receiver.ts';

// recurring:run as a real process, killed by SIGKILL in the middle of its batches, then run again: every due charge
// exists once, and nothing is half-written (a charge without its hidden charge, a mandate moved on without its charge).
let app: TestApp;
const children = new Set<ChildProcess>();
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  for (const child of children) child.kill('SIGKILL');
  await app?.close();
});

const MANDATES = 20_000;
const UNAPPROVED = 5_000; // CREATED, past expiresAt: expired first, each with its mandate.expired
const START = '2031-05-20';
const DAY = '2031-05-16'; // START - leadDays (4)

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);

function recurringRun(): { child: ChildProcess; out: () => string; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ['scripts/ops.ts', 'recurring:run', '--date', DAY], {
    env: { ...process.env, DATABASE_URL: app.databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.resume();
  const exited = once(child, 'exit');
  void exited.then(() => children.delete(child));
  return { child, out: () => out, exited };
}

// What the database holds for the merchant: recurring charges, hidden charges, and mandates by where they stand.
async function state(merchantId: string) {
  const [s] = await sql<Record<string, string>>(
    `select (select count(*) from recurring_charges where merchant_id = ?) as charges,
            (select count(distinct mandate_id) from recurring_charges where merchant_id = ? and cycle = 0) as charged,
            (select count(*) from charges where merchant_id = ? and type = 'RECURRING') as hidden,
            (select count(*) from recurring_charges r left join charges c on c.id = r.charge_id and c.txid = r.txid
              where r.merchant_id = ? and c.id is null) as orphans,
            (select count(*) from mandates where merchant_id = ? and next_cycle = 1 and auto_charge_on = '2031-06-16')
              as moved,
            (select count(*) from mandates m where merchant_id = ? and next_cycle = 1
                and exists (select 1 from recurring_charges r where r.mandate_id = m.id and r.cycle = 0)) as moved_with_charge,
            (select count(*) from mandates where merchant_id = ? and next_cycle = 0 and auto_charge_on is null
                and status = 'APPROVED') as untouched,
            (select count(*) from mandates where merchant_id = ? and status = 'EXPIRED'
                and history->-1->>'status' = 'EXPIRED') as expired,
            (select count(*) from events where merchant_id = ? and type = 'mandate.expired') as expired_events,
            (select count(distinct resource_id) from events where merchant_id = ? and type = 'mandate.expired')
              as expired_mandates_told`,
    Array(10).fill(merchantId),
  );
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Number(v)]));
}

// Runs recurring:run and kills it by SIGKILL once `done()` reaches `at` (some batches committed, the run still going);
// then waits until the dead client's backend has rolled back (else the next run would skip the mandates it still
// locks, left to the next hourly run).
async function killedRun(t: ExecutionContext, done: () => Promise<number>, at: number) {
  const run = recurringRun();
  while ((await done()) < at && run.child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
  run.child.kill('SIGKILL');
  await run.exited;
  t.is(run.child.signalCode, 'SIGKILL');
  t.is(run.out(), '', 'killed before it printed its result');
  await waitUntil(
    async () =>
      (
        await sql(
          `select 1 from pg_locks l join pg_class c on c.oid = l.relation
            where c.relname = 'mandates' and l.pid <> pg_backend_pid()`,
        )
      ).length === 0,
    10_000,
    "the killed run's transaction gone",
  );
}

// Nothing half-written: each expired mandate with its event, each charge with its hidden charge and its mandate moved
// on, the other mandates untouched.
function whole(t: ExecutionContext, s: Record<string, number>) {
  t.is(s.expired_events, s.expired, 'each expired mandate with its event, committed together');
  t.is(s.expired_mandates_told, s.expired);
  t.is(s.hidden, s.charges, 'each charge with its hidden charge, nothing more');
  t.is(s.orphans, 0);
  t.is(s.charged, s.charges, 'one per mandate');
  t.is(s.moved, s.charges, 'a mandate moved on exactly when its charge committed');
  t.is(s.moved_with_charge, s.charges);
  t.is(s.untouched, MANDATES - s.charges, 'the others untouched');
}

test('recurring:run killed by SIGKILL during its expiries, then its charges, then run again: every due charge and expiry once, nothing half-written', async (t) => {
  const m = await createOnboardedMerchant(app);
  await insertAutoMandates(app.orm.em.fork(), m.merchantId, MANDATES, { startDate: START, leadDays: 4 });
  await insertAutoMandates(app.orm.em.fork(), m.merchantId, UNAPPROVED, {
    startDate: START,
    status: 'CREATED',
    expiresAt: '2031-05-10T12:00:00Z',
  });
  const count = (q: string) => async () => Number((await sql<{ n: string }>(q, [m.merchantId]))[0].n);
  const expired = count(`select count(*) as n from mandates where merchant_id = ? and status = 'EXPIRED'`);
  const charged = count('select count(*) as n from recurring_charges where merchant_id = ?');
  const some = (batches: number) => 1000 * (1 + Math.floor(Math.random() * batches)); // 1 to `batches`, at random

  await killedRun(t, expired, some(3));
  const first = await state(m.merchantId);
  t.log(`first kill: ${first.expired} of ${UNAPPROVED} expiries, ${first.charges} of ${MANDATES} charges`);
  t.true(first.expired < UNAPPROVED, 'killed during the expiries');
  whole(t, first);

  await killedRun(t, charged, some(10));
  const second = await state(m.merchantId);
  t.log(`second kill: ${second.expired} of ${UNAPPROVED} expiries, ${second.charges} of ${MANDATES} charges`);
  t.true(second.charges < MANDATES, 'killed during the charges');
  t.is(second.expired, UNAPPROVED);
  whole(t, second);

  const last = recurringRun();
  await last.exited;
  t.is(last.child.exitCode, 0);
  t.deepEqual(JSON.parse(last.out()), { created: MANDATES - second.charges, expired: 0 });
  t.deepEqual(await state(m.merchantId), {
    charges: MANDATES,
    charged: MANDATES,
    hidden: MANDATES,
    orphans: 0,
    moved: MANDATES,
    moved_with_charge: MANDATES,
    untouched: 0,
    expired: UNAPPROVED,
    expired_events: UNAPPROVED,
    expired_mandates_told: UNAPPROVED,
  });
  const again = recurringRun();
  await again.exited;
  t.deepEqual(JSON.parse(again.out()), { created: 0, expired: 0 }, 'a run after finds nothing to do');
});
