// The withdrawals' request rules.
import { body } from 'express-validator';
import { idempotencyKeyRule } from '../platform/validation.ts';
import { isValidPixKey, normalizePixKey, PIX_KEY_TYPES, type PixKeyType } from '../pix/keys.ts';
import { stripFormatChars } from '../pix/text.ts';

const MAX_AMOUNT = 2_147_483_647; // the amount column is a 32-bit integer

const isPixKeyType = (type: unknown): type is PixKeyType => (PIX_KEY_TYPES as readonly unknown[]).includes(type);
// What the merchant is told when the key does not fit its type (DICT formats).
const PIX_KEY_MESSAGES: Record<PixKeyType, string> = {
  CPF: 'pixKey deve ser um CPF válido (11 dígitos)',
  CNPJ: 'pixKey deve ser um CNPJ válido (14 dígitos)',
  EMAIL: 'pixKey deve ser um e-mail válido (até 77 caracteres)',
  PHONE: 'pixKey deve ser um telefone no formato +55 seguido de 10 ou 11 dígitos',
  CHAVE_ALEATORIA: 'pixKey deve ser uma chave aleatória (UUID)',
};

export const createWithdrawalRules = [
  body('amount')
    .custom((v) => Number.isSafeInteger(v) && v >= 1 && v <= MAX_AMOUNT)
    .withMessage(`amount deve ser um inteiro em centavos, de 1 a ${MAX_AMOUNT}`),
  body('pixKeyType')
    .custom(isPixKeyType)
    .withMessage(`pixKeyType deve ser um de: ${PIX_KEY_TYPES.join(', ')}`),
  body('pixKey')
    .isString()
    .withMessage('pixKey é obrigatório')
    .bail()
    .custom((key: string, { req }) => {
      const type: unknown = req.body.pixKeyType;
      // an invalid type is reported on its own field only
      if (isPixKeyType(type) && !isValidPixKey(type, normalizePixKey(type, key)))
        throw new Error(PIX_KEY_MESSAGES[type]);
      return true;
    })
    .customSanitizer((key: string, { req }) =>
      isPixKeyType(req.body.pixKeyType) ? normalizePixKey(req.body.pixKeyType, key) : key,
    ),
  body('description')
    .optional({ values: 'null' })
    .isString()
    .withMessage('description deve ser um texto')
    .bail()
    .customSanitizer(stripFormatChars) // the recipient reads it (infoPagador)
    .isLength({ max: 255 })
    .withMessage('description deve ter no máximo 255 caracteres'),
  idempotencyKeyRule,
];
