// The statement's request rules: dates, format and locale.
import { listQueryRules, singleQuery } from '../platform/validation.ts';
import { calendarDateProblem, dateChecks, dateTimeProblem, instantOfDateTime, utcMidnight } from '../platform/dates.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Sao_Paulo', timeZoneName: 'longOffset' });
const offsetMs = (instant: number) => {
  const name = offsetFormat.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
};

/** 00:00 of a São Paulo calendar date `days` after `YYYY-MM-DD` (null: no such date), as an instant. */
function saoPauloMidnight(date: string, days = 0): Date | null {
  if (calendarDateProblem(date) !== null) return null;
  const day = utcMidnight(date) + days * 86_400_000;
  return new Date(day - offsetMs(day - offsetMs(day)));
}

/**
 * `from` and `to` of the statement: a calendar date (`YYYY-MM-DD`, a day in São Paulo: `from` its first instant, `to`
 * through its last) or an ISO 8601 date-time with its offset (`to` inclusive, to the millisecond the API shows), in
 * the years the API accepts (src/platform/dates.ts). Sanitized to the range's bounds: from (inclusive) and until
 * (exclusive).
 */
export function instantOf(value: string, bound: 'from' | 'to'): Date | null {
  if (DATE.test(value)) return saoPauloMidnight(value, bound === 'to' ? 1 : 0);
  const t = instantOfDateTime(value);
  return t && new Date(bound === 'to' ? t.getTime() + 1 : t.getTime());
}

const dateOrDateTimeProblem = (v: unknown) =>
  typeof v === 'string' && DATE.test(v) ? calendarDateProblem(v) : dateTimeProblem(v);

const rangeRule = (bound: 'from' | 'to') =>
  dateChecks(
    singleQuery(bound),
    bound,
    dateOrDateTimeProblem,
    `${bound} deve ser uma data (AAAA-MM-DD) ou data e hora ISO 8601 com fuso (ex.: 2026-11-01T00:00:00-03:00)`,
  ).customSanitizer((v: string) => instantOf(v, bound));

export const STATEMENT_FORMATS = ['json', 'csv'] as const;
export const STATEMENT_LOCALES = ['pt-BR'] as const;

// GET /v1/merchants/me/statement: page and limit as every listing, from <= to, format json or csv, locale pt-BR (the
// CSV for Brazilian spreadsheets; the JSON is the same with or without it).
export const statementRules = [
  ...listQueryRules,
  rangeRule('from'),
  rangeRule('to')
    .custom((until: Date, { req }) => {
      const from = (req.query as { from?: unknown }).from; // as sent (Express 5 parses the query on each read)
      const start = from instanceof Date ? from : typeof from === 'string' ? instantOf(from, 'from') : null;
      return start === null || start < until;
    })
    .withMessage('to deve ser posterior a from'),
  singleQuery('format')
    .custom((v) => typeof v === 'string' && (STATEMENT_FORMATS as readonly string[]).includes(v))
    .withMessage('format deve ser json ou csv'),
  singleQuery('locale')
    .custom((v) => typeof v === 'string' && (STATEMENT_LOCALES as readonly string[]).includes(v))
    .withMessage('locale deve ser pt-BR'),
];
