// Tests of a due-date charge's amounts (fine, interest, discount, rebate) on the day it is paid.
import test from 'ava';
import fc from 'fast-check';
import { addDays, endOfSaoPauloDay, saoPauloDate } from './due-date.ts';
import { daysBetween } from '../money/due-date-amounts.ts';
import { isCalendarDate } from '../platform/dates.ts';

const day0 = Date.UTC(2024, 0, 1);
const dateArb = fc
  .integer({ min: 0, max: 3000 })
  .map((n) => new Date(day0 + n * 86_400_000).toISOString().slice(0, 10));

test('calendar dates: real dates only, day arithmetic across month ends and leap years', (t) => {
  for (const good of ['2026-01-31', '2028-02-29', '2026-12-31', '2030-06-15']) t.true(isCalendarDate(good), good);
  for (const bad of [
    '2026-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-1-01',
    '2026-01-32',
    '1999-12-31',
    '2101-01-01',
    '9999-12-31',
    '20260101',
    5,
  ])
    t.false(isCalendarDate(bad), String(bad));
  t.is(addDays('2026-01-31', 1), '2026-02-01');
  t.is(addDays('2028-02-28', 1), '2028-02-29');
  t.is(addDays('2026-03-01', -1), '2026-02-28');
  t.is(daysBetween('2026-01-01', '2027-01-01'), 365);
  t.is(daysBetween('2028-01-01', '2029-01-01'), 366);
  fc.assert(fc.property(dateArb, fc.integer({ min: -5000, max: 5000 }), (d, n) => daysBetween(d, addDays(d, n)) === n));
});

test('São Paulo dates: a payment at 02:59Z is still the previous day; the last second of a day is 23:59:59 local', (t) => {
  t.is(saoPauloDate(new Date('2026-03-11T02:59:59Z')), '2026-03-10');
  t.is(saoPauloDate(new Date('2026-03-11T03:00:00Z')), '2026-03-11');
  t.is(endOfSaoPauloDay('2026-12-31').toISOString(), '2027-01-01T02:59:59.000Z');
  t.is(endOfSaoPauloDay('2028-02-29').toISOString(), '2028-03-01T02:59:59.000Z');
  // São Paulo kept summer time (UTC-2) until 2019: the day ended an hour earlier in UTC then
  t.is(endOfSaoPauloDay('2018-12-25').toISOString(), '2018-12-26T01:59:59.000Z');
  // the night summer time ended (2002-02-16, 23:59:59 -02 then 23:00 -03): the day's last second is the second 23:59:59
  t.is(endOfSaoPauloDay('2002-02-16').toISOString(), '2002-02-17T02:59:59.000Z');
  t.is(saoPauloDate(new Date('2002-02-17T02:30:00Z')), '2002-02-16');
  // the night it began (2002-11-03, 00:00 -03 became 01:00 -02): 11-02 ended at 23:59:59 -03, 11-03 at 23:59:59 -02
  t.is(endOfSaoPauloDay('2002-11-02').toISOString(), '2002-11-03T02:59:59.000Z');
  t.is(endOfSaoPauloDay('2002-11-03').toISOString(), '2002-11-04T01:59:59.000Z');
  const anyDay = fc
    .integer({ min: 0, max: 40_000 })
    .map((n) => new Date(Date.UTC(2000, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
  fc.assert(
    fc.property(anyDay, (d) => {
      const end = endOfSaoPauloDay(d);
      return saoPauloDate(end) === d && saoPauloDate(new Date(end.getTime() + 1000)) === addDays(d, 1);
    }),
  );
});
