// /v1/api-keys: a user creates, lists and revokes its merchant's API keys (JWT only).
import { Router } from 'express';
import { body } from 'express-validator';
import { validate } from '../platform/validation.ts';
import { requireJwt } from './authenticate.ts';
import type { PrincipalCache } from './principal-cache.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.ts';

// JWT only: an API key can never mint or revoke API keys. A revocation empties this process' principal cache at once
// (other processes forget on the database's notification): the next request with the key is refused here.
export function apiKeyRoutes(principals?: PrincipalCache): Router {
  const router = Router();
  router.use(requireJwt);

  router.post(
    '/',
    ...validate([
      body('name')
        .isString()
        .withMessage('name é obrigatório')
        .bail()
        .trim()
        .isLength({ min: 1, max: 100 })
        .withMessage('name deve ter entre 1 e 100 caracteres'),
      body('description')
        .isString()
        .withMessage('description é obrigatório')
        .bail()
        .trim()
        .isLength({ min: 1, max: 255 })
        .withMessage('description deve ter entre 1 e 255 caracteres'),
    ]),
    async (req, res) => {
      const { name, description } = req.body as { name: string; description: string };
      res.status(201).json({ apiKey: await createApiKey(req.em, req.user!.userId, { name, description }) });
    },
  );

  router.get('/', async (req, res) => {
    res.json({ apiKeys: await listApiKeys(req.em, req.user!.userId) });
  });

  router.delete('/:id', async (req, res) => {
    await revokeApiKey(req.em, req.user!.userId, req.params.id);
    principals?.forget();
    res.json({ message: 'Chave de API desativada' });
  });

  return router;
}
