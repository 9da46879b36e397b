import type { RequestHandler } from 'express';
import { validationResult, type ValidationChain } from 'express-validator';
import { ValidationError } from './errors.ts';

// Runs the chains, then answers 400 with every field error (contract: { message, errors: [{ field, message }] }).
export function validate(chains: ValidationChain[]): RequestHandler[] {
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
