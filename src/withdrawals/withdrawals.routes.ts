import { Router } from 'express';
import { body, matchedData } from 'express-validator';
import type { Deps } from '../deps.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { idempotencyKeyRule, listQueryRules, validate } from '../platform/validation.ts';
import { PIX_KEY_TYPES, type PixKeyType } from '../pix-keys/pix-key.entity.ts';
import { isValidPixKey, normalizePixKey } from '../pix-keys/format.ts';
import { creationView, createWithdrawal, getWithdrawal, listWithdrawals, withdrawalView, type WithdrawalInput } from './withdrawals.service.ts';

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

const createRules = [
  body('amount').custom((v) => Number.isSafeInteger(v) && v >= 1 && v <= MAX_AMOUNT)
    .withMessage(`amount deve ser um inteiro em centavos, de 1 a ${MAX_AMOUNT}`),
  body('pixKeyType').custom(isPixKeyType).withMessage(`pixKeyType deve ser um de: ${PIX_KEY_TYPES.join(', ')}`),
  body('pixKey').isString().withMessage('pixKey é obrigatório').bail()
    .custom((key: string, { req }) => {
      const type: unknown = req.body.pixKeyType;
      // an invalid type is reported on its own field only
      if (isPixKeyType(type) && !isValidPixKey(type, normalizePixKey(type, key))) throw new Error(PIX_KEY_MESSAGES[type]);
      return true;
    })
    .customSanitizer((key: string, { req }) => (isPixKeyType(req.body.pixKeyType) ? normalizePixKey(req.body.pixKeyType, key) : key)),
  body('description').optional({ values: 'null' }).isString().withMessage('description deve ser um texto').bail()
    .isLength({ max: 255 }).withMessage('description deve ter no máximo 255 caracteres'),
  idempotencyKeyRule,
];

// /v1/merchants/me/withdrawals (spec 4.8, 4.9; contract "Withdrawals").
export function withdrawalRoutes({ boss }: Deps): Router {
  const router = Router();

  router.post('/', ...validate(createRules), async (req, res) => {
    const { amount, pixKey, pixKeyType, description } = req.body as WithdrawalInput;
    const key = req.get('x-idempotency-key');
    const { withdrawal, replayed } = await createWithdrawal(req.em, boss, merchantIdOf(req),
      { amount, pixKey, pixKeyType, description: description ?? null }, key);
    if (replayed) res.set('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 201).json({ withdrawal: creationView(withdrawal) });
  });

  router.get('/', ...validate(listQueryRules), async (req, res) => {
    // Express 5's req.query is read-only: the sanitized (integer) values live in matchedData
    const { page = 1, limit = 20 } = matchedData(req, { locations: ['query'] }) as { page?: number; limit?: number };
    res.json(await listWithdrawals(req.em, merchantIdOf(req), page, limit));
  });

  // Not in the spec: one withdrawal, to follow it without paging (404 for unknown ids and other merchants' ids).
  router.get('/:id', async (req, res) => {
    res.json({ withdrawal: withdrawalView(await getWithdrawal(req.em, merchantIdOf(req), String(req.params.id))) });
  });

  return router;
}
