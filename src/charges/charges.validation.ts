// The charges' request rules (express-validator): creation and the listing's query.
import { body } from 'express-validator';
import { idempotencyKeyRule, listQueryRules, singleQuery, whenPresent } from '../platform/validation.ts';
import { isValidDocument, normalizeDocument } from '../pix/documents.ts';
import { stripFormatChars } from '../pix/text.ts';
import { CHARGE_STATUSES } from './charge.entity.ts';
import { DUE_DATE_FIELDS, dueDateRules } from './due-date.validation.ts';
import { MAX_SPLITS } from '../money/splits.ts';
import { isUuid } from '../platform/base.entity.ts';

export const TRACKING_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'src', 'sck'];
const MAX_INT = 2_147_483_647;
const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
// JSON integers only: "100" (a string) or 1.5 are refused rather than coerced.
const integer = (min: number, max: number) => (v: unknown) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

// `today`: the São Paulo date a due date may not be earlier than.
export const createChargeRules = (today: () => string) => [
  idempotencyKeyRule,
  body('amount').custom(integer(1, MAX_INT)).withMessage('amount deve ser um inteiro em centavos, mínimo 1'),
  body('description')
    .isString()
    .withMessage('description é obrigatório')
    .bail()
    .customSanitizer(stripFormatChars) // the payer reads it (src/pix/text.ts)
    .trim()
    .isLength({ min: 1, max: 255 })
    .withMessage('description deve ter de 1 a 255 caracteres'),
  body('expiresIn')
    .optional({ values: 'null' })
    .custom(integer(60, 604800))
    .withMessage('expiresIn deve ser um inteiro entre 60 e 604800 segundos'),
  whenPresent(['customer'], customerRules),
  body('tracking')
    .optional({ values: 'null' })
    .custom(isPlainObject)
    .withMessage('tracking deve ser um objeto')
    .bail()
    .custom((t: Record<string, unknown>) => Object.keys(t).every((k) => TRACKING_FIELDS.includes(k)))
    .withMessage(`tracking aceita apenas: ${TRACKING_FIELDS.join(', ')}`)
    .bail()
    .custom((t: Record<string, unknown>) => Object.values(t).every((v) => typeof v === 'string' && v.length <= 255))
    .withMessage('cada campo de tracking deve ser texto de até 255 caracteres'),
  // the due-date rules also require a customer and refuse expiresIn when a dueDate is given
  whenPresent(DUE_DATE_FIELDS, dueDateRules(today)),
  whenPresent(['splits'], splitRules),
];

// customer: { name, document, email?, phone? }
const customerRules = [
  body('customer').optional({ values: 'null' }).custom(isPlainObject).withMessage('customer deve ser um objeto'),
  body('customer.name')
    .if(body('customer').custom(isPlainObject))
    .isString()
    .withMessage('customer.name é obrigatório')
    .bail()
    .customSanitizer(stripFormatChars)
    .trim()
    .isLength({ min: 1, max: 100 })
    .withMessage('customer.name deve ter de 1 a 100 caracteres'),
  body('customer.document')
    .if(body('customer').custom(isPlainObject))
    .custom(isValidDocument)
    .withMessage('customer.document deve ser um CPF ou CNPJ válido')
    .customSanitizer(normalizeDocument),
  body('customer.email')
    .optional({ values: 'null' })
    .isString()
    .withMessage('customer.email inválido')
    .bail()
    .isEmail()
    .withMessage('customer.email inválido')
    .isLength({ max: 254 }),
  body('customer.phone')
    .optional({ values: 'null' })
    .isString()
    .bail()
    .matches(/^\+?\d{10,14}$/)
    .withMessage('customer.phone inválido'),
];

// splits: 1..10 of { merchantId, amount } | { merchantId, bps } (a due date: bps only). Who the recipients are and
// whether the splits fit in the net amount are the service's to check (they need the database and the fee).
const isSplit = (v: unknown) => {
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v as object);
  return keys.length === 2 && keys.includes('merchantId') && (keys.includes('amount') || keys.includes('bps'));
};
const hasSplits = body('splits').custom(Array.isArray);
const splitRules = [
  body('splits')
    .optional({ values: 'null' })
    .isArray({ min: 1, max: MAX_SPLITS })
    .withMessage(`splits deve ser uma lista de 1 a ${MAX_SPLITS} recebedores`)
    .bail()
    .custom(
      (splits: unknown[], { req }) =>
        req.body?.dueDate == null || splits.every((s) => isPlainObject(s) && !('amount' in (s as object))),
    )
    .withMessage(
      'splits de uma cobrança com vencimento aceitam apenas bps: o valor líquido só é conhecido no pagamento',
    ),
  body('splits.*')
    .if(hasSplits)
    .custom(isSplit)
    .withMessage('cada split deve ser { merchantId, amount } ou { merchantId, bps }'),
  body('splits.*.merchantId')
    .if(hasSplits)
    .custom((v) => typeof v === 'string' && isUuid(v))
    .withMessage('merchantId deve ser o id (UUID) de um merchant')
    .bail()
    .toLowerCase(),
  body('splits.*.amount')
    .if(hasSplits)
    .optional()
    .custom(integer(1, MAX_INT))
    .withMessage('amount de um split deve ser um inteiro em centavos, mínimo 1'),
  body('splits.*.bps')
    .if(hasSplits)
    .optional()
    .custom(integer(1, 10_000))
    .withMessage('bps de um split deve ser um inteiro de 1 a 10000 (pontos-base do valor líquido)'),
];

export const listChargesRules = [
  ...listQueryRules,
  singleQuery('status')
    .isIn(CHARGE_STATUSES)
    .withMessage(`status deve ser um de: ${CHARGE_STATUSES.join(', ')}`),
];
