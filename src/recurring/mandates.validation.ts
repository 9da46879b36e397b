// The rules of the mandates' bodies and queries (contract: Pix Automático, Mandates): each broken one a 400 naming its
// field. Rules that need the database (the merchant, the DUE_DATE_QR charge) are the service's.
import { body, type Meta, type ValidationChain } from 'express-validator';
import { idempotencyKeyRule, isOneOf, listQueryRules, singleQuery, whenPresent } from '../platform/validation.ts';
import { calendarDateProblem, dateChecks } from '../platform/dates.ts';
import { isUuid } from '../platform/base.entity.ts';
import { isValidDocument, normalizeDocument } from '../pix/documents.ts';
import { stripFormatChars } from '../pix/text.ts';
import { plusDays, WINDOW } from './calendar.ts';
import { FREQUENCIES, MANDATE_JOURNEYS, MANDATE_STATUSES, RETRY_POLICIES } from './mandate.entity.ts';

const MAX_INT = 2_147_483_647;
export const DEFAULT_MANDATE_EXPIRES_IN = 86_400;
export const DEFAULT_LEAD_DAYS = 4;

type Body = Record<string, unknown>;
const bodyOf = (meta: Meta) => (meta.req.body ?? {}) as Body;
const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const integer = (min: number, max: number) => (v: unknown) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const journeyIs = (journey: string) => (_v: unknown, meta: Meta) => bodyOf(meta).journey === journey;
const journeyIsNot = (journey: string) => (_v: unknown, meta: Meta) => bodyOf(meta).journey !== journey;
const absent = (v: unknown) => v == null;

const text = (field: string, max: number, min = 1) =>
  body(field)
    .isString()
    .withMessage(`${field} é obrigatório`)
    .bail()
    .customSanitizer(stripFormatChars) // the payer reads it in the banking app (src/pix/text.ts)
    .trim()
    .isLength({ min, max })
    .withMessage(`${field} deve ter de ${min} a ${max} caracteres`);

const document = (field: string, when?: ValidationChain) =>
  (when ? body(field).if(when) : body(field))
    .custom(isValidDocument)
    .withMessage(`${field} deve ser um CPF ou CNPJ válido`)
    .customSanitizer(normalizeDocument);

// payerAccount (PUSH): the payer's account at its PSP, where the request is sent. Like every whenPresent group, these
// pass when payerAccount is absent (src/platform/validation.ts).
const hasPayerAccount = body('payerAccount').custom(isObject);
const payerAccountRules = [
  body('payerAccount.ispb')
    .if(hasPayerAccount)
    .matches(/^\d{8}$/)
    .withMessage('payerAccount.ispb deve ter 8 dígitos'),
  body('payerAccount.branch')
    .if(hasPayerAccount)
    .matches(/^\d{1,4}$/)
    .withMessage('payerAccount.branch deve ter de 1 a 4 dígitos'),
  body('payerAccount.account')
    .if(hasPayerAccount)
    .matches(/^\d{1,20}$/)
    .withMessage('payerAccount.account deve ter de 1 a 20 dígitos'),
  document('payerAccount.document', hasPayerAccount),
];

const hasAutoCharge = body('autoCharge').custom(isObject);
const autoChargeRules = [
  body('autoCharge').optional({ values: 'null' }).custom(isObject).withMessage('autoCharge deve ser um objeto'),
  body('autoCharge.leadDays')
    .optional({ values: 'null' })
    .custom(integer(WINDOW.minDays, WINDOW.maxDays))
    .withMessage(`autoCharge.leadDays deve ser um inteiro entre ${WINDOW.minDays} e ${WINDOW.maxDays}`),
  body('autoCharge.amount')
    .optional({ values: 'null' })
    .custom(integer(1, MAX_INT))
    .withMessage('autoCharge.amount deve ser um inteiro em centavos, mínimo 1'),
  // a variable mandate's automatic charges need their amount; a fixed one's are its amount
  body('autoCharge.amount')
    .if(hasAutoCharge)
    .if((_v: unknown, meta: Meta) => bodyOf(meta).amount == null)
    .custom((v) => v != null)
    .withMessage('autoCharge.amount é obrigatório numa autorização de valor variável'),
  body('autoCharge.amount')
    .if(hasAutoCharge)
    .if((_v: unknown, meta: Meta) => bodyOf(meta).amount != null)
    .custom((v, meta) => v == null || v === bodyOf(meta).amount)
    .withMessage('autoCharge.amount deve ser igual a amount numa autorização de valor fixo (ou ausente)'),
];

// `today`: the São Paulo date startDate must come after.
export const createMandateRules = (today: () => string) => [
  idempotencyKeyRule,
  body('journey')
    .custom(isOneOf(MANDATE_JOURNEYS))
    .withMessage(`journey deve ser um de: ${MANDATE_JOURNEYS.join(', ')}`),
  body('customer').custom(isObject).withMessage('customer deve ser um objeto com name e document').bail(),
  text('customer.name', 100),
  document('customer.document'),
  text('contract', 35),
  text('object', 35),
  body('frequency')
    .custom(isOneOf(FREQUENCIES))
    .withMessage(`frequency deve ser um de: ${FREQUENCIES.join(', ')}`),
  dateChecks(body('startDate'), 'startDate', calendarDateProblem, 'startDate deve ser uma data no formato AAAA-MM-DD')
    .custom((d: string) => d >= plusDays(today(), 1))
    .withMessage('startDate deve ser a partir de amanhã (America/Sao_Paulo)'),
  dateChecks(
    body('endDate').optional({ values: 'null' }),
    'endDate',
    calendarDateProblem,
    'endDate deve ser uma data no formato AAAA-MM-DD',
  )
    .custom((d: string, meta) => typeof bodyOf(meta).startDate !== 'string' || d >= (bodyOf(meta).startDate as string))
    .withMessage('endDate não pode ser anterior a startDate'),
  body('amount')
    .optional({ values: 'null' })
    .custom(integer(1, MAX_INT))
    .withMessage('amount deve ser um inteiro em centavos, mínimo 1')
    .bail()
    .custom((_v, meta) => bodyOf(meta).minAmount == null)
    .withMessage('informe amount (valor fixo) ou minAmount (valor variável), não os dois'),
  body('minAmount')
    .optional({ values: 'null' })
    .custom(integer(1, MAX_INT))
    .withMessage('minAmount deve ser um inteiro em centavos, mínimo 1'),
  body('retryPolicy')
    .optional({ values: 'null' })
    .custom(isOneOf(RETRY_POLICIES))
    .withMessage(`retryPolicy deve ser um de: ${RETRY_POLICIES.join(', ')}`),
  body('expiresIn')
    .optional({ values: 'null' })
    .custom(integer(60, 2_592_000))
    .withMessage('expiresIn deve ser um inteiro entre 60 e 2592000 segundos'),
  // each journey's own part, refused on the others
  body('payerAccount')
    .if(journeyIs('PUSH'))
    .custom(isObject)
    .withMessage('payerAccount é obrigatório na jornada PUSH: { ispb, branch, account, document }'),
  body('payerAccount').if(journeyIsNot('PUSH')).custom(absent).withMessage('payerAccount só se aplica à jornada PUSH'),
  whenPresent(['payerAccount'], payerAccountRules),
  body('firstPayment')
    .if(journeyIs('QR_WITH_PAYMENT'))
    .custom((v) => isObject(v) && integer(1, MAX_INT)(v.amount))
    .withMessage('firstPayment.amount é obrigatório na jornada QR_WITH_PAYMENT: um inteiro em centavos, mínimo 1'),
  body('firstPayment')
    .if(journeyIsNot('QR_WITH_PAYMENT'))
    .custom(absent)
    .withMessage('firstPayment só se aplica à jornada QR_WITH_PAYMENT'),
  body('chargeId')
    .if(journeyIs('DUE_DATE_QR'))
    .custom((v) => typeof v === 'string' && isUuid(v))
    .withMessage('chargeId é obrigatório na jornada DUE_DATE_QR: o id de uma cobrança com vencimento')
    .bail()
    .toLowerCase(),
  body('chargeId')
    .if(journeyIsNot('DUE_DATE_QR'))
    .custom(absent)
    .withMessage('chargeId só se aplica à jornada DUE_DATE_QR'),
  whenPresent(['autoCharge'], autoChargeRules),
];

export const listMandatesRules = [
  ...listQueryRules,
  singleQuery('status')
    .isIn(MANDATE_STATUSES)
    .withMessage(`status deve ser um de: ${MANDATE_STATUSES.join(', ')}`),
  singleQuery('customerDocument')
    .custom(isValidDocument)
    .withMessage('customerDocument deve ser um CPF ou CNPJ válido')
    .customSanitizer(normalizeDocument),
];

const reason = body('reason')
  .optional({ values: 'null' })
  .isString()
  .withMessage('reason deve ser texto')
  .bail()
  .customSanitizer(stripFormatChars)
  .trim()
  .isLength({ min: 1, max: 140 })
  .withMessage('reason deve ter de 1 a 140 caracteres');

// PATCH: only { status: CANCELED, reason? }; anything else is the service's 422 (the one change allowed).
export const patchMandateRules = [reason];

export const approveRules = [
  body('payerMaxAmount')
    .optional({ values: 'null' })
    .custom(integer(1, MAX_INT))
    .withMessage('payerMaxAmount deve ser um inteiro em centavos, mínimo 1'),
];

export const payerCancelRules = [reason];
