// Request validation (express-validator): the 400 with every field's error, shared rules.
import type { RequestHandler } from 'express';
import { header, query, validationResult, type ValidationChain } from 'express-validator';
import { ValidationError } from './errors.ts';

// Runs the chains, then answers 400 with every field error (contract: { message, errors: [{ field, message }] }).
export function validate(chains: (ValidationChain | RequestHandler)[]): RequestHandler[] {
  const check: RequestHandler = (req, _res, next) => {
    const result = validationResult(req);
    if (result.isEmpty()) return next();
    const seen = new Set<string>();
    const errors: { field: string; message: string }[] = [];
    for (const e of result.array()) {
      const field = e.type === 'field' ? e.path : e.type;
      if (seen.has(field)) continue; // first failing rule per field is enough
      seen.add(field);
      errors.push({ field, message: String(e.msg) });
    }
    next(new ValidationError(errors));
  };
  return [...chains, check];
}

/**
 * The chains of an optional part of a body (a customer, a due date, splits), run only when the body has one of
 * `fields` (not null): a request without that part does not pay for its rules (a charge's ~40 chains cost more than its
 * QR code). The chains must all pass when every one of `fields` is absent or null (test/validation.groups.test.ts
 * checks that the errors are those of running every chain).
 */
export function whenPresent(
  fields: readonly string[],
  chains: ValidationChain[],
): RequestHandler & { chains: ValidationChain[] } {
  const handler: RequestHandler = async (req, _res, next) => {
    const body = req.body as Record<string, unknown> | undefined;
    if (fields.some((f) => body?.[f] != null)) for (const chain of chains) await chain.run(req);
    next();
  };
  return Object.assign(handler, { chains }); // the chains, for the test that compares with running them all
}

// A repeated parameter (?page=1&page=2) arrives as an array: refused, not half-validated.
export const singleQuery = (name: string) =>
  query(name).optional().not().isArray().withMessage(`${name} deve aparecer uma única vez`).bail();

// page >= 1 and limit 1..100 of every listing (spec 4.9, contract "Lists").
export const listQueryRules = [
  singleQuery('page').isInt({ min: 1, max: 2_147_483_647 }).withMessage('page deve ser um inteiro >= 1').toInt(),
  singleQuery('limit').isInt({ min: 1, max: 100 }).withMessage('limit deve ser um inteiro entre 1 e 100').toInt(),
];

// An enum value: a string among `values` (isIn alone would accept ["A"], checking each element of an array).
export const isOneOf =
  (values: readonly string[]) =>
  (v: unknown): boolean =>
    typeof v === 'string' && values.includes(v);

export const idempotencyKeyRule = header('x-idempotency-key')
  .optional()
  .isLength({ min: 1, max: 64 })
  .withMessage('x-idempotency-key deve ter de 1 a 64 caracteres');
