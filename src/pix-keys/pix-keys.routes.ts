import { Router } from 'express';
import { body } from 'express-validator';
import type { Deps } from '../deps.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { PIX_KEY_TYPES, type PixKeyType } from './pix-key.entity.ts';
import { isValidPixKey, normalizePixKey } from './format.ts';
import { createPixKey, deletePixKey, listPixKeys } from './pix-keys.service.ts';

// /v1/merchants/me/pix-keys: the merchant's own keys (an ACTIVE one is a charge prerequisite).
export function pixKeyRoutes({ boss }: Deps): Router {
  const router = Router();

  router.post('/', ...validate([
    body('type').isIn(PIX_KEY_TYPES).withMessage(`type deve ser um de: ${PIX_KEY_TYPES.join(', ')}`),
    body('key').isString().withMessage('key é obrigatório').bail()
      .custom((key: string, { req }) => !PIX_KEY_TYPES.includes(req.body.type) || isValidPixKey(req.body.type, normalizePixKey(req.body.type, key)))
      .withMessage('key inválida para o tipo informado'),
  ]), async (req, res) => {
    const type = req.body.type as PixKeyType;
    const pixKey = await createPixKey(req.em, boss, merchantIdOf(req), type, normalizePixKey(type, req.body.key as string));
    res.status(201).json({ pixKey });
  });

  router.get('/', async (req, res) => {
    res.json({ pixKeys: await listPixKeys(req.em, merchantIdOf(req)) });
  });

  router.delete('/:id', async (req, res) => {
    await deletePixKey(req.em, boss, merchantIdOf(req), req.params.id);
    res.json({ message: 'Chave PIX removida' });
  });

  return router;
}
