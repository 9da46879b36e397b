// Tests of the day's Pix Automático job: what it charges, run after run.
import test from 'ava';
import fc from 'fast-check';
import { FREQUENCIES } from './mandate.entity.ts';
import { cycleStart, plusDays, type Frequency } from './calendar.ts';
import { planFor } from './recurring.daily.ts';
import type { DueMandateRow } from './recurring.daily.sql.ts';

// A mandate as the day's job sees it, and the days the job runs on: what it charges, run after run (planFor is the
// whole decision; the SQL only applies it to the locked rows).
function mandate(start: string, frequency: Frequency, leadDays: number, endDate: string | null): DueMandateRow {
  return {
    id: 'm',
    merchant_id: 'x',
    rec_id: 'r',
    customer_name: 'n',
    customer_document: 'd',
    frequency,
    start_date: start,
    end_date: endDate,
    amount: 5000,
    retry_policy: 'NONE',
    object: 'o',
    location: null,
    auto_charge: { amount: null, leadDays },
    next_cycle: 0,
    auto_charge_on: null,
    fee_bps: null,
    fee_fixed: null,
  };
}

// Runs the job on each of `days` (ascending), as runDay selects: not planned yet, or due by the day.
function simulate(m: DueMandateRow, days: string[]) {
  const charged: { day: string; cycle: number; dueDate: string }[] = [];
  for (const day of days) {
    if (m.auto_charge_on !== null && m.auto_charge_on > day) continue;
    const plan = planFor(m, day);
    if (plan.charge) charged.push({ day, ...plan.charge });
    check(plan.autoChargeOn > day, 'looked at again only on a later day');
    m = { ...m, next_cycle: plan.nextCycle, auto_charge_on: plan.autoChargeOn };
  }
  return charged;
}
function check(ok: boolean, what: string) {
  if (!ok) throw new Error(what);
}

const date = fc
  .record({
    y: fc.integer({ min: 2026, max: 2040 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 31 }),
  })
  .map(({ y, m, d }) => new Date(Date.UTC(y, m - 1, Math.min(d, new Date(Date.UTC(y, m, 0)).getUTCDate()))))
  .map((x) => x.toISOString().slice(0, 10));
const scenario = fc.record({
  start: date,
  frequency: fc.constantFrom(...FREQUENCIES),
  leadDays: fc.integer({ min: 2, max: 10 }),
  approvedBefore: fc.integer({ min: -60, max: 30 }), // the first run's day, relative to the start
  endAfter: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
});

test('run every day: each cycle in term whose first day is at least leadDays after the first run is charged once, leadDays before it', (t) => {
  fc.assert(
    fc.property(scenario, ({ start, frequency, leadDays, approvedBefore, endAfter }) => {
      const first = plusDays(start, -approvedBefore);
      const end = endAfter === null ? null : plusDays(start, endAfter);
      const days = Array.from({ length: 400 }, (_, i) => plusDays(first, i));
      const charged = simulate(mandate(start, frequency, leadDays, end), days);
      const expected = [];
      for (let k = 0; ; k++) {
        const due = cycleStart(start, frequency, k);
        if (plusDays(due, -leadDays) > days[days.length - 1] || (end !== null && due > end)) break;
        if (plusDays(due, -leadDays) >= first) expected.push({ day: plusDays(due, -leadDays), cycle: k, dueDate: due });
      }
      t.deepEqual(charged, expected);
    }),
    { numRuns: 300 },
  );
});

test('runs missed at random: never a cycle twice, never two charges a day, each inside the creation window and leadDays', (t) => {
  fc.assert(
    fc.property(scenario, fc.array(fc.boolean(), { minLength: 300, maxLength: 300 }), (s, ran) => {
      const first = plusDays(s.start, -s.approvedBefore);
      const end = s.endAfter === null ? null : plusDays(s.start, s.endAfter);
      const days = ran.flatMap((r, i) => (r ? [plusDays(first, i)] : []));
      const charged = simulate(mandate(s.start, s.frequency, s.leadDays, end), days);
      t.is(new Set(charged.map((c) => c.cycle)).size, charged.length, 'each cycle once');
      t.is(new Set(charged.map((c) => c.day)).size, charged.length, 'one a day');
      for (const c of charged) {
        t.is(c.dueDate, cycleStart(s.start, s.frequency, c.cycle));
        t.true(c.dueDate >= plusDays(c.day, 2) && c.dueDate <= plusDays(c.day, s.leadDays), JSON.stringify(c));
        if (end !== null) t.true(c.dueDate <= end);
      }
      // cycles go up
      t.deepEqual(
        charged.map((c) => c.cycle),
        [...charged.map((c) => c.cycle)].sort((a, b) => a - b),
      );
    }),
    { numRuns: 300 },
  );
});
