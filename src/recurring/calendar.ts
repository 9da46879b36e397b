// The calendar of Pix Automático (pure, São Paulo calendar days `YYYY-MM-DD`): a mandate's cycles, the window in which a
// cycle's charge may be created, and the days a failed debit may be retried (contract: Pix Automático).
import { utcMidnight } from '../platform/dates.ts';
import type { FREQUENCIES } from './mandate.entity.ts';

export type Frequency = (typeof FREQUENCIES)[number];

const DAY_MS = 86_400_000;
// months per cycle; WEEKLY is 7 days
const MONTHS: Record<Exclude<Frequency, 'WEEKLY'>, number> = { MONTHLY: 1, QUARTERLY: 3, SEMIANNUAL: 6, ANNUAL: 12 };

const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/** `date` plus `days` calendar days (negative: before). */
export const plusDays = (date: string, days: number): string => iso(utcMidnight(date) + days * DAY_MS);

/** Whole days from `a` to `b` (b - a). */
export const daysBetween = (a: string, b: string): number => Math.round((utcMidnight(b) - utcMidnight(a)) / DAY_MS);

/** `date` plus `months` calendar months on its day of month, clamped to the last day of the month reached. */
export function plusMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12; // 0-based
  const last = new Date(Date.UTC(2000, month + 1, 0)).getUTCDate(); // the month's length in a leap year...
  const lastOfYear = month === 1 && !isLeap(year) ? 28 : last; // ...but February's of this year
  const day = Math.min(d, lastOfYear);
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** The first day of cycle `k` (0-based) of a mandate starting on `start`. */
export function cycleStart(start: string, frequency: Frequency, k: number): string {
  return frequency === 'WEEKLY' ? plusDays(start, 7 * k) : plusMonths(start, MONTHS[frequency] * k);
}

/** The cycle `date` falls in (cycle k is [cycleStart(k), cycleStart(k + 1))), or -1 before `start`. */
export function cycleOf(start: string, frequency: Frequency, date: string): number {
  if (date < start) return -1;
  if (frequency === 'WEEKLY') return Math.floor(daysBetween(start, date) / 7);
  const [ys, ms] = start.split('-').map(Number);
  const [yd, md] = date.split('-').map(Number);
  let k = Math.floor((yd * 12 + md - (ys * 12 + ms)) / MONTHS[frequency]);
  while (k > 0 && cycleStart(start, frequency, k) > date) k--;
  while (cycleStart(start, frequency, k + 1) <= date) k++;
  return k;
}

/** The first cycle whose first day is on or after `date` (0 when `date` <= start). */
export function firstCycleFrom(start: string, frequency: Frequency, date: string): number {
  const k = cycleOf(start, frequency, date);
  if (k < 0) return 0;
  return cycleStart(start, frequency, k) === date ? k : k + 1;
}

// A cycle's charge is created 2 to 10 days before its due date (contract).
export const WINDOW = { minDays: 2, maxDays: 10 } as const;
// A failed debit may be retried from dueDate + 1 to dueDate + 7; unpaid, the charge expires on dueDate + 8.
export const RETRY = { firstDay: 1, lastDay: 7, max: 3 } as const;

/** Whether a charge due on `dueDate` may be created on `today`. */
export const inWindow = (today: string, dueDate: string): boolean =>
  dueDate >= plusDays(today, WINDOW.minDays) && dueDate <= plusDays(today, WINDOW.maxDays);

/** The day a recurring charge unpaid by its last retry day expires. */
export const expiresOn = (dueDate: string): string => plusDays(dueDate, RETRY.lastDay + 1);
