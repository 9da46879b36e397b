// /v1/merchants/me/pix-keys: create, list and delete the merchant's Pix keys.
import { Router } from 'express';
import { body } from 'express-validator';
import type { Services as Deps } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { isOneOf, validate } from '../platform/validation.ts';
import { PIX_KEY_TYPES, type PixKeyType, isValidPixKey, normalizePixKey } from '../pix/keys.ts';
import { createPixKey, deletePixKey, listPixKeys } from './pix-keys.service.ts';

// /v1/merchants/me/pix-keys: the merchant's own keys (an ACTIVE one is a charge prerequisite).
export function pixKeyRoutes(deps: Deps): Router {
  const router = Router();

  router.post(
    '/',
    ...validate([
      body('type')
        .custom(isOneOf(PIX_KEY_TYPES))
        .withMessage(`type deve ser um de: ${PIX_KEY_TYPES.join(', ')}`),
      body('key')
        .isString()
        .withMessage('key é obrigatório')
        .bail()
        .custom(
          (key: string, { req }) =>
            !PIX_KEY_TYPES.includes(req.body.type) || isValidPixKey(req.body.type, normalizePixKey(req.body.type, key)),
        )
        .withMessage('key inválida para o tipo informado')
        .bail()
        .customSanitizer((key: string, { req }) => normalizePixKey(req.body.type, key)),
    ]),
    async (req, res) => {
      const { type, key } = req.body as { type: PixKeyType; key: string };
      const pixKey = await createPixKey(deps, req.em, merchantIdOf(req), { type, key });
      res.status(201).json({ pixKey });
    },
  );

  router.get('/', async (req, res) => {
    res.json({ pixKeys: await listPixKeys(req.em, merchantIdOf(req)) });
  });

  router.delete('/:id', async (req, res) => {
    await deletePixKey(deps, req.em, merchantIdOf(req), req.params.id);
    res.json({ message: 'Chave PIX removida' });
  });

  return router;
}
