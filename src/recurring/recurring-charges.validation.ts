// The recurring charges' request rules: create, list, update, retry.
import { body } from 'express-validator';
import { idempotencyKeyRule, isOneOf, listQueryRules, singleQuery } from '../platform/validation.ts';
import { calendarDateProblem, dateChecks } from '../platform/dates.ts';
import { stripFormatChars } from '../pix/text.ts';
import { isUuid } from '../platform/base.entity.ts';
import { RECURRING_CHARGE_STATUSES } from './recurring-charge.entity.ts';

const MAX_INT = 2_147_483_647;
const isAmount = (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_INT;
const dateRule = (field: string) =>
  dateChecks(body(field), field, calendarDateProblem, `${field} deve ser uma data no formato AAAA-MM-DD`);

// POST /v1/mandates/:id/charges { dueDate, amount, description? }
export const createRecurringChargeRules = [
  idempotencyKeyRule,
  dateRule('dueDate'),
  body('amount').custom(isAmount).withMessage('amount deve ser um inteiro em centavos, mínimo 1'),
  body('description')
    .optional({ values: 'null' })
    .isString()
    .withMessage('description deve ser um texto')
    .bail()
    .customSanitizer(stripFormatChars) // the payer reads it
    .trim()
    .isLength({ min: 1, max: 140 })
    .withMessage('description deve ter de 1 a 140 caracteres'),
];

// GET /v1/recurring-charges?page&limit&mandateId&status
export const listRecurringChargesRules = [
  ...listQueryRules,
  singleQuery('mandateId').custom(isUuid).withMessage('mandateId deve ser um UUID'),
  singleQuery('status')
    .custom(isOneOf(RECURRING_CHARGE_STATUSES))
    .withMessage(`status deve ser um de: ${RECURRING_CHARGE_STATUSES.join(', ')}`),
];

// PATCH /v1/recurring-charges/:id { status: CANCELED }
export const updateRecurringChargeRules = [
  body('status')
    .custom(isOneOf(['CANCELED']))
    .withMessage('status deve ser CANCELED'),
];

// POST /v1/recurring-charges/:id/retries { date }
export const retryRules = [dateRule('date')];

export const FAILURE_CODE = /^[A-Z0-9]{4}$/;
// POST /v1/sandbox/recurring-charges/:id/attempt { outcome, failureCode? }
export const attemptRules = [
  body('outcome')
    .custom(isOneOf(['PAID', 'REJECTED']))
    .withMessage('outcome deve ser PAID ou REJECTED'),
  body('failureCode')
    .optional({ values: 'null' })
    .custom((v) => typeof v === 'string' && FAILURE_CODE.test(v))
    .withMessage('failureCode deve ter 4 letras maiúsculas ou dígitos (ex.: AM04)'),
];
