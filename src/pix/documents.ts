// CPF and CNPJ: normalised and their check digits validated.
import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';

// CPF (11 digits) or CNPJ (14 digits), check digits validated; punctuation is accepted and stripped.
export function normalizeDocument<T>(input: T): T | string {
  // non-strings are left for the validator to refuse
  return typeof input === 'string' ? input.replace(/[.\-/\s]/g, '') : input;
}

export function isValidDocument(input: unknown): boolean {
  if (typeof input !== 'string') return false;
  const digits = normalizeDocument(input);
  if (digits.length === 11) return /^\d{11}$/.test(digits) && isValidCpf(digits);
  if (digits.length === 14) return /^\d{14}$/.test(digits) && isValidCnpj(digits);
  return false;
}
