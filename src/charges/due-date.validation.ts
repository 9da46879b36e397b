// The rules of POST /v1/charges that a due date brings (contract: Charges with a due date): the date, the validity after
// it, and the terms (rebate, discount, fine, interest), each of an exact shape per mode. Bounds, where the contract
// leaves them open: amounts are centavos up to the charge's own limit, percentages are basis points of 0.01 % to 100 %
// (below 100 % for what is taken off: rebate and discount), and the amount due on the last valid day, the largest the
// charge can ever ask, must still fit that limit.
import { body, type CustomValidator, type Meta } from 'express-validator';
import { calendarDateProblem, dateChecks } from '../platform/dates.ts';
import { amountDueOn, type DueDateTerms } from '../money/due-date-amounts.ts';
import { addDays } from './due-date.ts';

const MAX_INT = 2_147_483_647; // the charges' amount columns (int4)
export const MAX_DAYS_AHEAD = 3650; // the latest due date, in days from today
export const MAX_VALIDITY_DAYS = 3650;
export const DEFAULT_VALIDITY_DAYS = 30;
const MAX_BPS = 10_000; // 100 %
const MAX_OFF_BPS = 9_999; // what a rebate or discount takes off stays below 100 %

// The fields that only a charge with a due date takes.
export const DUE_DATE_FIELDS = ['dueDate', 'validityAfterDueDays', 'rebate', 'discount', 'fine', 'interest'] as const;

type Body = Record<string, unknown>;
const bodyOf = (meta: Meta) => (meta.req.body ?? {}) as Body;
const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const hasDueDate = (_v: unknown, meta: Meta) => bodyOf(meta).dueDate != null;
const modeOf = (b: Body, field: string) => (isObject(b[field]) ? b[field].mode : undefined);
const withMode =
  (field: string, ...modes: string[]) =>
  (_v: unknown, meta: Meta) =>
    modes.includes(modeOf(bodyOf(meta), field) as string);
// below the charge's amount (when that is valid: otherwise its own rule answers)
const belowAmount: CustomValidator = (v, meta) => {
  const amount = bodyOf(meta).amount;
  return isInt(v, 1, Number.isInteger(amount) ? (amount as number) - 1 : MAX_INT);
};

/** A term: `{ mode, <its keys> }` exactly, for one of the modes; e.g. { FIXED: ['amount'], PERCENT: ['bps'] }. */
const shaped =
  (modes: Record<string, string[]>): CustomValidator =>
  (v) => {
    if (!isObject(v) || typeof v.mode !== 'string' || !Object.hasOwn(modes, v.mode)) return false;
    const keys = ['mode', ...modes[v.mode]];
    return Object.keys(v).length === keys.length && keys.every((k) => k in v);
  };
const describe = (field: string, modes: Record<string, string[]>) =>
  `${field} deve ser ${Object.entries(modes)
    .map(([mode, keys]) => `{ mode: "${mode}", ${keys.join(', ')} }`)
    .join(' | ')}`;

const REBATE = { FIXED: ['amount'], PERCENT: ['bps'] };
const DISCOUNT = { FIXED_UNTIL: ['dates'], PERCENT_UNTIL: ['dates'], DAILY_AMOUNT: ['amount'], DAILY_PERCENT: ['bps'] };
const FINE = { FIXED: ['amount'], PERCENT: ['bps'] };
const INTEREST = {
  DAILY_AMOUNT: ['amount'],
  DAILY_PERCENT: ['bps'],
  MONTHLY_PERCENT: ['bps'],
  YEARLY_PERCENT: ['bps'],
};

const term = (field: string, modes: Record<string, string[]>) =>
  body(field).optional({ values: 'null' }).custom(shaped(modes)).withMessage(describe(field, modes));

// The most the charge can ever ask: the amount due on its last valid day (fine and interest only grow with the days).
const lastDayFits: CustomValidator = (_v, meta) => {
  const b = bodyOf(meta);
  try {
    const dueDate = b.dueDate as string;
    const terms = {
      original: b.amount,
      dueDate,
      rebate: b.rebate ?? null,
      discount: b.discount ?? null,
      fine: b.fine ?? null,
      interest: b.interest ?? null,
    } as DueDateTerms;
    const last = addDays(dueDate, (b.validityAfterDueDays as number | null) ?? DEFAULT_VALIDITY_DAYS);
    return !(amountDueOn(terms, last).final > MAX_INT);
  } catch {
    return true; // a malformed term: its own rule answers
  }
};
const TOO_MUCH = `o valor devido no último dia de validade passaria de ${MAX_INT} centavos: reduza fine, interest ou validityAfterDueDays`;

/** The due-date rules, given what "today" is (the São Paulo date of the clock). */
export function dueDateRules(today: () => string) {
  const notBeforeToday = (d: string) => d >= today();
  return [
    dateChecks(
      body('dueDate').optional({ values: 'null' }),
      'dueDate',
      calendarDateProblem,
      'dueDate deve ser uma data no formato AAAA-MM-DD',
    )
      .custom(notBeforeToday)
      .withMessage('dueDate não pode ser anterior a hoje (America/Sao_Paulo)')
      .bail()
      .custom((d: string) => d <= addDays(today(), MAX_DAYS_AHEAD))
      .withMessage(`dueDate deve estar a no máximo ${MAX_DAYS_AHEAD} dias de hoje`),
    body('expiresIn')
      .if(hasDueDate)
      .custom((v) => v == null)
      .withMessage('expiresIn não se aplica a cobranças com dueDate: a validade vem de dueDate e validityAfterDueDays'),
    body('customer')
      .if(hasDueDate)
      .custom(isObject)
      .withMessage('customer é obrigatório em cobranças com vencimento (dueDate)'),
    ...DUE_DATE_FIELDS.slice(1).map((field) =>
      body(field)
        .if((_v: unknown, meta: Meta) => !hasDueDate(_v, meta))
        .custom((v) => v == null)
        .withMessage(`${field} só se aplica a cobranças com vencimento (dueDate)`),
    ),
    body('validityAfterDueDays')
      .optional({ values: 'null' })
      .custom((v) => isInt(v, 0, MAX_VALIDITY_DAYS))
      .withMessage(`validityAfterDueDays deve ser um inteiro entre 0 e ${MAX_VALIDITY_DAYS} dias`),

    term('rebate', REBATE),
    body('rebate.amount')
      .if(withMode('rebate', 'FIXED'))
      .custom(belowAmount)
      .withMessage('rebate.amount deve ser um inteiro em centavos, de 1 a amount - 1'),
    body('rebate.bps')
      .if(withMode('rebate', 'PERCENT'))
      .custom((v) => isInt(v, 1, MAX_OFF_BPS))
      .withMessage(`rebate.bps deve ser um inteiro entre 1 e ${MAX_OFF_BPS} (0,01% a 99,99%)`),

    term('discount', DISCOUNT),
    body('discount.dates')
      .if(withMode('discount', 'FIXED_UNTIL', 'PERCENT_UNTIL'))
      .isArray({ min: 1, max: 3 })
      .withMessage('discount.dates deve ser uma lista de 1 a 3 { until, amount } (FIXED_UNTIL) ou { until, bps }')
      .bail()
      .custom((dates: unknown[], meta) => {
        const key = modeOf(bodyOf(meta), 'discount') === 'FIXED_UNTIL' ? 'amount' : 'bps';
        return dates.every((d) => isObject(d) && Object.keys(d).length === 2 && 'until' in d && key in d);
      })
      .withMessage(
        'cada item de discount.dates deve ser { until, amount } (FIXED_UNTIL) ou { until, bps } (PERCENT_UNTIL)',
      )
      .bail()
      .custom((dates: { until: unknown }[]) =>
        dates.every((d, i) => i === 0 || String(d.until) > String(dates[i - 1].until)),
      )
      .withMessage('discount.dates deve estar em ordem crescente de until, sem datas repetidas'),
    dateChecks(
      body('discount.dates.*.until').if(withMode('discount', 'FIXED_UNTIL', 'PERCENT_UNTIL')),
      'until',
      calendarDateProblem,
      'until deve ser uma data no formato AAAA-MM-DD',
    )
      .custom((d: string, meta) => d >= today() && d <= String(bodyOf(meta).dueDate))
      .withMessage('until deve estar entre hoje e dueDate'),
    body('discount.dates.*.amount')
      .if(withMode('discount', 'FIXED_UNTIL'))
      .custom(belowAmount)
      .withMessage('amount do desconto deve ser um inteiro em centavos, de 1 a amount - 1'),
    body('discount.dates.*.bps')
      .if(withMode('discount', 'PERCENT_UNTIL'))
      .custom((v) => isInt(v, 1, MAX_OFF_BPS))
      .withMessage(`bps do desconto deve ser um inteiro entre 1 e ${MAX_OFF_BPS} (0,01% a 99,99%)`),
    body('discount.amount')
      .if(withMode('discount', 'DAILY_AMOUNT'))
      .custom(belowAmount)
      .withMessage('discount.amount deve ser um inteiro em centavos por dia, de 1 a amount - 1'),
    body('discount.bps')
      .if(withMode('discount', 'DAILY_PERCENT'))
      .custom((v) => isInt(v, 1, MAX_OFF_BPS))
      .withMessage(`discount.bps deve ser um inteiro entre 1 e ${MAX_OFF_BPS} (0,01% a 99,99% por dia)`),

    term('fine', FINE),
    body('fine.amount')
      .if(withMode('fine', 'FIXED'))
      .custom((v) => isInt(v, 1, MAX_INT))
      .withMessage('fine.amount deve ser um inteiro em centavos, mínimo 1'),
    body('fine.bps')
      .if(withMode('fine', 'PERCENT'))
      .custom((v) => isInt(v, 1, MAX_BPS))
      .withMessage(`fine.bps deve ser um inteiro entre 1 e ${MAX_BPS} (0,01% a 100%)`),

    term('interest', INTEREST),
    body('interest.amount')
      .if(withMode('interest', 'DAILY_AMOUNT'))
      .custom((v) => isInt(v, 1, MAX_INT))
      .withMessage('interest.amount deve ser um inteiro em centavos por dia, mínimo 1'),
    body('interest.bps')
      .if(withMode('interest', 'DAILY_PERCENT', 'MONTHLY_PERCENT', 'YEARLY_PERCENT'))
      .custom((v) => isInt(v, 1, MAX_BPS))
      .withMessage(`interest.bps deve ser um inteiro entre 1 e ${MAX_BPS} (0,01% a 100% no período)`),

    // reported on the term that makes the amount grow (interest, else fine)
    body('interest')
      .if((_v: unknown, meta: Meta) => hasDueDate(_v, meta) && bodyOf(meta).interest != null)
      .custom(lastDayFits)
      .withMessage(TOO_MUCH),
    body('fine')
      .if((_v: unknown, meta: Meta) => hasDueDate(_v, meta) && bodyOf(meta).interest == null)
      .custom(lastDayFits)
      .withMessage(TOO_MUCH),
  ];
}
