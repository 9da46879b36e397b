// Due-date charges (the BCB's cobv): what a payer owes on a given day. Pure functions over integer centavos and
// calendar dates (`YYYY-MM-DD`, the America/Sao_Paulo date: the day itself is the caller's, src/charges/due-date.ts);
// no clock, no database.
import type { Discount, DueTerms, Fine, Interest, Rebate } from './due-terms.ts';
import { bpsOf } from './money.ts';

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
  return rebate.mode === 'FIXED' ? rebate.amount : bpsOf(original, rebate.bps, 10_000);
}

function discountOn(discount: Discount | null, base: number, dueDate: string, day: string): number {
  if (!discount) return 0;
  const days = daysBetween(day, dueDate);
  switch (discount.mode) {
    case 'FIXED_UNTIL':
      return earliestFrom(discount.dates, day)?.amount ?? 0;
    case 'PERCENT_UNTIL': {
      const entry = earliestFrom(discount.dates, day);
      return entry ? bpsOf(base, entry.bps, 10_000) : 0;
    }
    case 'DAILY_AMOUNT':
      return discount.amount * days;
    case 'DAILY_PERCENT':
      return bpsOf(base, discount.bps, 10_000, days);
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
  return fine.mode === 'FIXED' ? fine.amount : bpsOf(base, fine.bps, 10_000);
}

function interestOf(interest: Interest | null, base: number, late: number): number {
  if (!interest) return 0;
  switch (interest.mode) {
    case 'DAILY_AMOUNT':
      return interest.amount * late;
    case 'DAILY_PERCENT':
      return bpsOf(base, interest.bps, 10_000, late);
    case 'MONTHLY_PERCENT':
      return bpsOf(base, interest.bps, 300_000, late);
    case 'YEARLY_PERCENT':
      return bpsOf(base, interest.bps, 3_650_000, late);
  }
}

// ---- calendar days ----

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

// Midnight UTC of a real calendar date `YYYY-MM-DD` (any four-digit year), or NaN: src/platform/dates.ts's utcMidnight,
// written here so that this module imports nothing.
function utcMidnight(date: string): number {
  const m = DATE.exec(date);
  if (!m) return NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(0).setUTCFullYear(y, mo - 1, d); // Date.UTC would read years 0..99 as 1900..1999
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? t : NaN;
}

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((utcMidnight(to) - utcMidnight(from)) / DAY_MS);
