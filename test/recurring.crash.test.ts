import test from 'ava';
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

test('recurring:run killed by SIGKILL mid-run, then run again: every due charge once, nothing half-written', async (t) => {
  const m = await createOnboardedMerchant(app);
  await insertAutoMandates(app.orm.em.fork(), m.merchantId, MANDATES, { startDate: START, leadDays: 4 });
  await insertAutoMandates(app.orm.em.fork(), m.merchantId, UNAPPROVED, {
    startDate: START,
    status: 'CREATED',
    expiresAt: '2031-05-10T12:00:00Z',
  });

  const first = recurringRun();
  // a few batches committed (how many: at random; expiries first, then charges), the run still going
  const killAt = 1000 * (1 + Math.floor(Math.random() * 10));
  for (;;) {
    const [{ n }] = await sql<{ n: string }>(
      `select (select count(*) from recurring_charges where merchant_id = ?)
            + (select count(*) from mandates where merchant_id = ? and status = 'EXPIRED') as n`,
      [m.merchantId, m.merchantId],
    );
    if (Number(n) >= killAt) break;
    if (first.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  first.child.kill('SIGKILL');
  await first.exited;
  t.is(first.child.signalCode, 'SIGKILL');
  t.is(first.out(), '', 'killed before it printed its result');

  const killed = await state(m.merchantId);
  t.log(`at the kill: ${killed.expired} of ${UNAPPROVED} expiries, ${killed.charges} of ${MANDATES} charges`);
  t.true(killed.expired + killed.charges < UNAPPROVED + MANDATES, 'killed mid-run');
  t.is(killed.expired_events, killed.expired, 'each expired mandate with its event, committed together');
  t.is(killed.expired_mandates_told, killed.expired);
  t.is(killed.hidden, killed.charges, 'each charge with its hidden charge, nothing more');
  t.is(killed.orphans, 0);
  t.is(killed.charged, killed.charges, 'one per mandate');
  t.is(killed.moved, killed.charges, 'a mandate moved on exactly when its charge committed');
  t.is(killed.moved_with_charge, killed.charges);
  t.is(killed.untouched, MANDATES - killed.charges, 'the others untouched');

  // the dead client's backend rolls back once PostgreSQL notices it is gone (else the next run would skip its locked
  // mandates, left to the next hourly run)
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
  const second = recurringRun();
  await second.exited;
  t.is(second.child.exitCode, 0);
  t.deepEqual(JSON.parse(second.out()), {
    created: MANDATES - killed.charges,
    expired: UNAPPROVED - killed.expired,
  });
  const after = await state(m.merchantId);
  t.deepEqual(after, {
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
  const third = recurringRun();
  await third.exited;
  t.deepEqual(JSON.parse(third.out()), { created: 0, expired: 0 }, 'a third run finds nothing to do');
});
