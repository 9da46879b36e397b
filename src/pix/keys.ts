// Pix key formats per type (CPF, CNPJ, e-mail, phone, random): validated and normalised.
import { isValidCnpj, isValidCpf, isValidEmail } from '@brazilian-utils/brazilian-utils';
import { validate as isUuid } from 'uuid';

export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'CHAVE_ALEATORIA'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

// Format rules per key type (contract): CPF/CNPJ digits with check digits, e-mail, +55 phone, a UUID for
// CHAVE_ALEATORIA.
export function isValidPixKey(type: PixKeyType, key: string): boolean {
  switch (type) {
    case 'CPF':
      return /^\d{11}$/.test(key) && isValidCpf(key);
    case 'CNPJ':
      return /^\d{14}$/.test(key) && isValidCnpj(key);
    case 'EMAIL':
      return key.length <= 77 && isValidEmail(key);
    case 'PHONE':
      return /^\+55\d{10,11}$/.test(key);
    case 'CHAVE_ALEATORIA':
      return isUuid(key);
  }
}

// Canonical form stored and compared: documents without punctuation, e-mail and random keys lower-cased.
export function normalizePixKey(type: PixKeyType, key: string): string {
  const k = key.trim();
  if (type === 'CPF' || type === 'CNPJ') return k.replace(/[.\-/\s]/g, '');
  if (type === 'EMAIL' || type === 'CHAVE_ALEATORIA') return k.toLowerCase();
  return k.replace(/[\s()-]/g, '');
}
