// Tests of the recurrence calendar against an independent one walked day by day.
import test from 'ava';
import fc from 'fast-check';
import { FREQUENCIES } from './mandate.entity.ts';
import {
  cycleOf,
  cycleStart,
  daysBetween,
  expiresOn,
  firstCycleFrom,
  inWindow,
  plusDays,
  plusMonths,
  type Frequency,
} from './calendar.ts';
import { saoPauloDate } from '../charges/due-date.ts';

// ---- an independent calendar: dates as [year, month, day], walked one day or one month at a time ----

type Ymd = [number, number, number];
const parse = (s: string): Ymd => s.split('-').map(Number) as Ymd;
const show = ([y, m, d]: Ymd) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
// February 29 exists in leap years: asked of JavaScript's Date, not of the Gregorian rule the calendar spells out
const leap = (y: number) => new Date(Date.UTC(y, 1, 29)).getUTCDate() === 29;
const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const monthLength = (y: number, m: number) => (m === 2 && leap(y) ? 29 : LENGTHS[m - 1]);

function nextDay([y, m, d]: Ymd): Ymd {
  if (d < monthLength(y, m)) return [y, m, d + 1];
  return m < 12 ? [y, m + 1, 1] : [y + 1, 1, 1];
}
function walkDays(date: string, days: number): string {
  let x = parse(date);
  for (let i = 0; i < days; i++) x = nextDay(x);
  return show(x);
}
function walkMonths(date: string, months: number): string {
  let [y, m] = parse(date);
  const d = parse(date)[2];
  for (let i = 0; i < months; i++) [y, m] = m < 12 ? [y, m + 1] : [y + 1, 1];
  return show([y, m, Math.min(d, monthLength(y, m))]);
}
const MONTHS: Record<Frequency, number> = { WEEKLY: 0, MONTHLY: 1, QUARTERLY: 3, SEMIANNUAL: 6, ANNUAL: 12 };
const startOf = (start: string, f: Frequency, k: number) =>
  f === 'WEEKLY' ? walkDays(start, 7 * k) : walkMonths(start, MONTHS[f] * k);
// the cycle of `date`, walking the days from `start` and moving to the next cycle on each cycle's first day
function walkCycleOf(start: string, f: Frequency, date: string): number {
  if (date < start) return -1;
  let k = 0;
  let next = startOf(start, f, 1);
  for (let d = parse(start); show(d) !== date;) {
    d = nextDay(d);
    if (show(d) === next) next = startOf(start, f, ++k + 1);
  }
  return k;
}
function countDays(from: string, to: string): number {
  let n = 0;
  for (let d = parse(from); show(d) !== to; d = nextDay(d)) n++;
  return n;
}

// ---- generators: 2000-2100, biased to month ends and February 29 ----

const anyDate = fc
  .record({
    y: fc.integer({ min: 2000, max: 2099 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 31 }),
  })
  .map(({ y, m, d }) => show([y, m, Math.min(d, monthLength(y, m))]));
const monthEnd = fc
  .record({ y: fc.integer({ min: 2000, max: 2099 }), m: fc.integer({ min: 1, max: 12 }) })
  .map(({ y, m }) => show([y, m, monthLength(y, m)]));
const feb29 = fc
  .integer({ min: 0, max: 24 })
  .map((i) => 2000 + 4 * i)
  .filter(leap)
  .map((y) => `${y}-02-29`);
const startDate = fc.oneof(anyDate, monthEnd, feb29, fc.constantFrom('2024-01-31', '2024-02-29', '2023-01-31'));
const frequency = fc.constantFrom(...FREQUENCIES);

test('plusMonths: the same day of month, clamped to the last day of the month reached (walked month by month)', (t) => {
  fc.assert(
    fc.property(startDate, fc.integer({ min: 0, max: 120 }), (date, months) => {
      t.is(plusMonths(date, months), walkMonths(date, months));
    }),
    { numRuns: 2000 },
  );
});

test('cycleStart: cycle k starts 7k days or k periods after the start, never drifting after a short month', (t) => {
  fc.assert(
    fc.property(startDate, frequency, fc.integer({ min: 0, max: 60 }), (start, f, k) => {
      const first = cycleStart(start, f, k);
      t.is(first, startOf(start, f, k));
      t.true(cycleStart(start, f, k + 1) > first, 'cycles follow each other');
      if (f !== 'WEEKLY')
        t.is(
          Number(first.slice(8)),
          Math.min(parse(start)[2], monthLength(...(parse(first).slice(0, 2) as [number, number]))),
        );
    }),
    { numRuns: 2000 },
  );
});

test('cycleOf and firstCycleFrom agree with a day-by-day walk from the start', (t) => {
  fc.assert(
    fc.property(startDate, frequency, fc.integer({ min: -40, max: 1500 }), (start, f, offset) => {
      const date = offset < 0 ? plusDays(start, offset) : walkDays(start, offset);
      const k = walkCycleOf(start, f, date);
      t.is(cycleOf(start, f, date), k);
      // the first cycle starting on or after `date`
      const expected = date <= start ? 0 : startOf(start, f, k) === date ? k : k + 1;
      t.is(firstCycleFrom(start, f, date), expected);
      t.true(cycleStart(start, f, expected) >= date);
      if (expected > 0) t.true(cycleStart(start, f, expected - 1) < date);
    }),
    { numRuns: 600 },
  );
});

test('plusDays, daysBetween, inWindow and expiresOn against counted days', (t) => {
  fc.assert(
    fc.property(anyDate, fc.integer({ min: 0, max: 40 }), (today, ahead) => {
      const due = walkDays(today, ahead);
      t.is(plusDays(today, ahead), due);
      t.is(plusDays(due, -ahead), today);
      t.is(daysBetween(today, due), countDays(today, due));
      t.is(inWindow(today, due), ahead >= 2 && ahead <= 10);
      t.is(expiresOn(due), walkDays(due, 8));
    }),
    { numRuns: 2000 },
  );
});

test('examples: Jan 31 monthly, Feb 29 annual, quarterly from Nov 30', (t) => {
  const jan31 = [0, 1, 2, 3, 4, 12, 13].map((k) => cycleStart('2024-01-31', 'MONTHLY', k));
  t.deepEqual(jan31, [
    '2024-01-31',
    '2024-02-29',
    '2024-03-31',
    '2024-04-30',
    '2024-05-31',
    '2025-01-31',
    '2025-02-28',
  ]);
  t.is(cycleStart('2023-01-31', 'MONTHLY', 1), '2023-02-28');
  t.is(cycleStart('2023-01-31', 'MONTHLY', 2), '2023-03-31', 'back to the 31st after February');
  t.deepEqual(
    [0, 1, 3, 4, 8].map((k) => cycleStart('2024-02-29', 'ANNUAL', k)),
    ['2024-02-29', '2025-02-28', '2027-02-28', '2028-02-29', '2032-02-29'],
  );
  t.deepEqual(
    [1, 2, 5].map((k) => cycleStart('2025-11-30', 'QUARTERLY', k)),
    ['2026-02-28', '2026-05-30', '2027-02-28'],
  );
  t.is(cycleStart('2099-12-31', 'SEMIANNUAL', 1), '2100-06-30');
  t.is(cycleStart('2100-01-31', 'MONTHLY', 1), '2100-02-28', '2100 is not a leap year');
  t.is(cycleOf('2024-01-31', 'MONTHLY', '2024-02-28'), 0);
  t.is(cycleOf('2024-01-31', 'MONTHLY', '2024-02-29'), 1);
  t.is(cycleOf('2024-01-31', 'MONTHLY', '2024-03-30'), 1);
  t.is(cycleOf('2024-01-31', 'MONTHLY', '2024-03-31'), 2);
  t.is(cycleOf('2024-01-31', 'MONTHLY', '2024-01-30'), -1);
  t.is(firstCycleFrom('2024-01-31', 'MONTHLY', '2024-03-01'), 2);
  t.is(firstCycleFrom('2024-01-31', 'MONTHLY', '2023-12-01'), 0);
  t.is(cycleOf('2024-02-29', 'ANNUAL', '2025-02-28'), 1);
  t.is(cycleOf('2024-02-29', 'ANNUAL', '2025-02-27'), 0);
  t.is(cycleOf('2026-01-05', 'WEEKLY', '2026-01-12'), 1);
  t.is(cycleOf('2026-01-05', 'WEEKLY', '2026-01-11'), 0);
});

// "today" in São Paulo across the old summer-time nights: summer time began at 00:00 on 2018-11-04 (the clock jumped
// to 01:00, -02:00) and ended at 00:00 on 2019-02-17 (back to 23:00 of the 16th, -03:00). Brazil has had none since.
test('saoPauloDate: the São Paulo day of an instant across the 2018-11-04 and 2019-02-17 changes', (t) => {
  const at = (iso: string) => saoPauloDate(new Date(iso));
  t.is(at('2018-11-04T02:59:59.999Z'), '2018-11-03'); // 23:59:59 -03:00
  t.is(at('2018-11-04T03:00:00Z'), '2018-11-04'); // 01:00 -02:00 (00:00 never happened)
  t.is(at('2018-11-05T01:59:59Z'), '2018-11-04'); // 23:59:59 -02:00
  t.is(at('2018-11-05T02:00:00Z'), '2018-11-05'); // midnight under summer time
  t.is(at('2019-01-15T01:59:59Z'), '2019-01-14');
  t.is(at('2019-01-15T02:00:00Z'), '2019-01-15');
  t.is(at('2019-02-17T01:59:59Z'), '2019-02-16'); // 23:59:59 -02:00
  t.is(at('2019-02-17T02:00:00Z'), '2019-02-16'); // 23:00 -03:00: the hour that came twice
  t.is(at('2019-02-17T02:59:59Z'), '2019-02-16');
  t.is(at('2019-02-17T03:00:00Z'), '2019-02-17'); // 00:00 -03:00
  t.is(at('2026-11-28T02:59:59Z'), '2026-11-27');
  t.is(at('2026-11-28T03:00:00Z'), '2026-11-28');
});

test('saoPauloDate: always the UTC date of the instant 3 or 2 hours earlier, 3 since 2019', (t) => {
  const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  fc.assert(
    fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 11, 31) }), (ms) => {
      const day = saoPauloDate(new Date(ms));
      if (ms >= Date.UTC(2019, 1, 17, 3)) t.is(day, utcDay(ms - 3 * 3600_000));
      else t.true(day === utcDay(ms - 3 * 3600_000) || day === utcDay(ms - 2 * 3600_000));
    }),
    { numRuns: 5000 },
  );
});
