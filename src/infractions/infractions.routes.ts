// /v1/infractions: a merchant's MED disputes and its defence; the sandbox's way to open one.
import { Router } from 'express';
import { body, matchedData } from 'express-validator';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { listQueryRules, validate } from '../platform/validation.ts';
import { defend, openInfraction } from './infractions.states.ts';
import { stripFormatChars } from '../pix/text.ts';
import { getInfraction, listInfractions } from './infractions.service.ts';

// /v1/infractions (contract "Infractions (MED)"): the merchant's disputes, newest first, and its defence.
export function infractionRoutes(deps: AcquirerDeps): Router {
  const router = Router();
  router.get('/', ...validate(listQueryRules), async (req, res) => {
    const { page = 1, limit = 20 } = matchedData(req, { locations: ['query'] }) as { page?: number; limit?: number };
    res.json(await listInfractions(req.em, merchantIdOf(req), page, limit));
  });
  router.get('/:id', async (req, res) => {
    res.json({ infraction: await getInfraction(req.em, merchantIdOf(req), String(req.params.id)) });
  });
  router.post(
    '/:id/defense',
    ...validate([
      body('text')
        .isString()
        .withMessage('text deve ser um texto')
        .bail()
        .customSanitizer(stripFormatChars) // the payer's bank reads it (the PSP's justificativa)
        .trim()
        .isLength({ min: 1, max: 5000 })
        .withMessage('text deve ter de 1 a 5000 caracteres'),
    ]),
    async (req, res) => {
      const { text } = matchedData(req, { locations: ['body'] }) as { text: string };
      res.json({ infraction: await defend(deps, req.em, merchantIdOf(req), String(req.params.id), text) });
    },
  );
  return router;
}

// POST /v1/sandbox/charges/:id/infraction (ACQUIRER=sandbox): the payer's bank opens a MED infraction on a PAID charge.
export function sandboxInfractionRoutes(deps: AcquirerDeps): Router {
  const router = Router();
  router.post(
    '/charges/:id/infraction',
    ...validate([
      body('reason')
        .optional({ values: 'null' })
        .isString()
        .withMessage('reason deve ser um texto')
        .bail()
        .customSanitizer(stripFormatChars)
        .trim()
        .isLength({ min: 1, max: 255 })
        .withMessage('reason deve ter de 1 a 255 caracteres'),
    ]),
    async (req, res) => {
      const { reason } = matchedData(req, { locations: ['body'] }) as { reason?: string };
      const infraction = await openInfraction(deps, req.em, {
        chargeId: String(req.params.id),
        merchantId: merchantIdOf(req),
        reason: reason ?? 'Fraude (simulada no sandbox)',
      });
      res.status(201).json({ infraction });
    },
  );
  return router;
}
