// The dates and times the API and the operator commands accept, one rule for all (docs/openapi.yaml, "Dates and
// times"): a calendar date `YYYY-MM-DD`, or a date-time with its offset, in the years 2000 to 2100. Nothing this
// service records lies outside them (its first records are from the 2020s, a due date is at most ten years ahead),
// and past them JavaScript and PostgreSQL stop agreeing on what a time is (the end of 9999-12-31 in São Paulo is in
// year 10000; `+275760-09-13` is a JavaScript date; an offset past ±15:59 is none to PostgreSQL), which is how such an
// input once became a 500.
import type { ValidationChain } from 'express-validator';
import { OpsUsageError } from './ops.ts';

export const FIRST_YEAR = 2000;
export const LAST_YEAR = 2100;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// seconds and fraction optional; the offset is required: a bare local time would be read in the server's zone
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i;

export type DateProblem = 'format' | 'range';

/** Midnight UTC of a real calendar date written `YYYY-MM-DD` (any four-digit year), or NaN (2026-02-30, 2026-13-01). */
export function utcMidnight(date: string): number {
  const m = DATE.exec(date);
  if (!m) return NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(0).setUTCFullYear(y, mo - 1, d); // Date.UTC would read years 0..99 as 1900..1999
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? t : NaN;
}

const yearInRange = (date: string) => {
  const year = Number(date.slice(0, 4));
  return year >= FIRST_YEAR && year <= LAST_YEAR;
};

/** What is wrong with a calendar date `YYYY-MM-DD`: not one ('format'), outside the years ('range'), or nothing. */
export function calendarDateProblem(value: unknown): DateProblem | null {
  if (typeof value !== 'string' || !Number.isFinite(utcMidnight(value))) return 'format';
  return yearInRange(value) ? null : 'range';
}

/** A real calendar date `YYYY-MM-DD` in the years 2000 to 2100. */
export const isCalendarDate = (value: unknown): value is string => calendarDateProblem(value) === null;

/**
 * What is wrong with an ISO 8601 date-time with its offset (`2026-11-25T10:00:00Z`, `2026-11-25T10:00-03:00`,
 * fraction of a second optional): not one ('format': no real date or time of day, no offset, an offset past ±14:59),
 * its date outside the years ('range'), or nothing.
 */
export function dateTimeProblem(value: unknown): DateProblem | null {
  if (typeof value !== 'string') return 'format';
  const m = DATE_TIME.exec(value);
  if (!m || !Number.isFinite(utcMidnight(m[1]))) return 'format';
  const [hour, minute, second = '0', , offsetHours = '0', offsetMinutes = '0'] = m.slice(2);
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return 'format';
  if (Number(offsetHours) > 14 || Number(offsetMinutes) > 59) return 'format';
  if (!Number.isFinite(Date.parse(value))) return 'format';
  return yearInRange(m[1]) ? null : 'range';
}

/** The instant of a date-time `dateTimeProblem` accepts, or null. */
export const instantOfDateTime = (value: unknown): Date | null =>
  dateTimeProblem(value) === null ? new Date(Date.parse(value as string)) : null;

/** The API's message for a date or time outside the years (400). */
export const dateRangeMessage = (field: string) => `${field} deve estar entre ${FIRST_YEAR}-01-01 e ${LAST_YEAR}-12-31`;

/**
 * A chain's date checks: `problem` says what is wrong with the value; a wrong format answers `formatMessage`, a date
 * outside the years the range message. Stops the chain at the first.
 */
export const dateChecks = (
  chain: ValidationChain,
  field: string,
  problem: (value: unknown) => DateProblem | null,
  formatMessage: string,
): ValidationChain =>
  chain
    .custom((v) => problem(v) !== 'format')
    .withMessage(formatMessage)
    .bail()
    .custom((v) => problem(v) === null)
    .withMessage(dateRangeMessage(field))
    .bail();

/**
 * An operator command's date flag (`--since`, `--until`): a calendar date or a date-time with its offset, in the same
 * years, returned as given (PostgreSQL compares it, keeping its microseconds); a usage error (exit 2) otherwise.
 */
export function dateFlag(raw: unknown, name: string): string {
  const problem = typeof raw === 'string' && DATE.test(raw) ? calendarDateProblem(raw) : dateTimeProblem(raw);
  if (problem === 'range')
    throw new OpsUsageError(`--${name} must be between ${FIRST_YEAR}-01-01 and ${LAST_YEAR}-12-31`);
  if (problem) throw new OpsUsageError(`--${name} must be an ISO 8601 date (YYYY-MM-DD) or date-time with its offset`);
  return raw as string;
}
