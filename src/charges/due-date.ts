// Due-date charges' calendar: the America/Sao_Paulo date of an instant (a payment's day), the last second of a day (a
// charge's validity), dates `YYYY-MM-DD` moved by days. What a payer owes on a day is src/money/due-date-amounts.ts.
import { utcMidnight } from '../platform/dates.ts';

const TIME_ZONE = 'America/Sao_Paulo';
const DAY_MS = 86_400_000;

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
