// Due-date charges (the BCB's cobv): what a payer owes on a given day. Pure functions over integer centavos and
// calendar dates (`YYYY-MM-DD`, the America/Sao_Paulo date); no clock, no database.

import type { Discount, DueTerms, Fine, Interest, Rebate } from '../pix/due-terms.ts';
import { utcMidnight } from '../platform/dates.ts';

export type { Discount, Fine, Interest, Rebate };

export type DueDateTerms = DueTerms & { original: number; dueDate: string };

// What a payment on one day is made of: original - rebate - discount + fine + interest = final, always.
export type Components = {
  original: number;
  rebate: number;
  discount: number;
  fine: number;
  interest: number;
  final: number;
};

const TIME_ZONE = 'America/Sao_Paulo';
const DAY_MS = 86_400_000;

// round_half_up(numerator / denominator) of non-negative integers, exact at any size (products can pass 2^53).
function roundHalfUp(numerator: bigint, denominator: bigint): number {
  return Number((2n * numerator + denominator) / (2n * denominator));
}

// round_half_up(base * bps * days / divisor): a percentage of `base`, per day when `days` is given.
const percent = (base: number, bps: number, divisor: number, days = 1) =>
  roundHalfUp(BigInt(base) * BigInt(bps) * BigInt(days), BigInt(divisor));

/** The amount due on `day` and its parts. Never below 1 centavo: the rebate and then the discount give way first. */
export function amountDueOn(terms: DueDateTerms, day: string): Components {
  const { original, dueDate, rebate, discount, fine, interest } = terms;
  const rebateAmount = Math.min(original - 1, rebateOf(rebate, original));
  const base = original - rebateAmount;
  const parts = { original, rebate: rebateAmount, discount: 0, fine: 0, interest: 0 };
  if (day <= dueDate) {
    parts.discount = Math.min(base - 1, discountOn(discount, base, dueDate, day));
  } else {
    const late = daysBetween(dueDate, day);
    parts.fine = fineOf(fine, base);
    parts.interest = interestOf(interest, base, late);
  }
  return { ...parts, final: base - parts.discount + parts.fine + parts.interest };
}

function rebateOf(rebate: Rebate | null, original: number): number {
  if (!rebate) return 0;
  return rebate.mode === 'FIXED' ? rebate.amount : percent(original, rebate.bps, 10_000);
}

function discountOn(discount: Discount | null, base: number, dueDate: string, day: string): number {
  if (!discount) return 0;
  const days = daysBetween(day, dueDate);
  switch (discount.mode) {
    case 'FIXED_UNTIL':
      return earliestFrom(discount.dates, day)?.amount ?? 0;
    case 'PERCENT_UNTIL': {
      const entry = earliestFrom(discount.dates, day);
      return entry ? percent(base, entry.bps, 10_000) : 0;
    }
    case 'DAILY_AMOUNT':
      return discount.amount * days;
    case 'DAILY_PERCENT':
      return percent(base, discount.bps, 10_000, days);
  }
}

// The *_UNTIL entry that applies on `day`: the earliest `until` on or after it (none once every date has passed).
function earliestFrom<T extends { until: string }>(dates: T[], day: string): T | undefined {
  let best: T | undefined;
  for (const d of dates) if (d.until >= day && (!best || d.until < best.until)) best = d;
  return best;
}

function fineOf(fine: Fine | null, base: number): number {
  if (!fine) return 0;
  return fine.mode === 'FIXED' ? fine.amount : percent(base, fine.bps, 10_000);
}

function interestOf(interest: Interest | null, base: number, late: number): number {
  if (!interest) return 0;
  switch (interest.mode) {
    case 'DAILY_AMOUNT':
      return interest.amount * late;
    case 'DAILY_PERCENT':
      return percent(base, interest.bps, 10_000, late);
    case 'MONTHLY_PERCENT':
      return percent(base, interest.bps, 300_000, late);
    case 'YEARLY_PERCENT':
      return percent(base, interest.bps, 3_650_000, late);
  }
}

// ---- calendar dates ----

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((utcMidnight(to) - utcMidnight(from)) / DAY_MS);

/** The date `days` calendar days after `date`. */
export const addDays = (date: string, days: number): string =>
  new Date(utcMidnight(date) + days * DAY_MS).toISOString().slice(0, 10);

const dateFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The America/Sao_Paulo calendar date of an instant: a payment's day. */
export const saoPauloDate = (instant: Date): string => dateFormat.format(instant);

const offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: TIME_ZONE, timeZoneName: 'longOffset' });

// Minutes east of UTC in São Paulo at an instant ("GMT-03:00" -> -180; historical summer time -> -120).
function offsetMinutes(instant: number): number {
  const name = offsetFormat.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

// The first instant of a São Paulo calendar day: its midnight under the offset in force before or after a change of
// offset near it, whichever is the earliest instant of that date. When summer time ended (clocks went back from
// 00:00 to 23:00) the hour before midnight came twice, so the day before ended an hour later than its first 23:59:59;
// when it began (00:00 became 01:00) the day started at 01:00.
function startOfSaoPauloDay(date: string): number {
  const local = utcMidnight(date); // 00:00 of that date, read as if it were UTC
  const offsets = new Set([offsetMinutes(local - DAY_MS), offsetMinutes(local + DAY_MS)]);
  const starts = [...offsets].map((o) => local - o * 60_000).filter((t) => saoPauloDate(new Date(t)) === date);
  return Math.min(...starts);
}

/** The last second of a São Paulo calendar day (23:59:59 local, the later one if it came twice), as an instant. */
export function endOfSaoPauloDay(date: string): Date {
  return new Date(startOfSaoPauloDay(addDays(date, 1)) - 1000);
}
