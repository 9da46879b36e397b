import { Router } from 'express';
import { body, type ValidationChain } from 'express-validator';
import type { Services as Deps } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { isOneOf, validate } from '../platform/validation.ts';
import { EVENT_CATALOG, EVENT_TYPES } from './catalog.ts';
import { canonicalWebhookUrl, URL_MESSAGES, webhookUrlProblem } from './url-policy.ts';
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  updateWebhook,
  type CreateWebhookInput,
  type UpdateWebhookInput,
} from './webhooks.service.ts';

const ALLOWED = EVENT_TYPES.join(', ');

// Shared rules of POST and PATCH; `optional` distinguishes "absent" from "present but wrong".
function urlRule(publicOnly: boolean, required: boolean): ValidationChain {
  const chain = body('url');
  return (required ? chain.exists({ values: 'null' }).withMessage(URL_MESSAGES.required).bail() : chain.optional())
    .custom(async (value: unknown) => {
      const problem = await webhookUrlProblem(value, publicOnly);
      if (problem) throw new Error(problem);
    })
    .customSanitizer((value: unknown) => canonicalWebhookUrl(value) ?? value); // stored as it will be delivered to
}

const nameRule = () =>
  body('name')
    .optional({ values: 'null' })
    .isString()
    .withMessage('name deve ser um texto')
    .bail()
    .isLength({ max: 100 })
    .withMessage('name deve ter no máximo 100 caracteres');

const eventsRule = () =>
  body('events')
    .optional()
    .isArray()
    .withMessage('events deve ser uma lista de nomes de eventos')
    .bail()
    .custom((events: unknown[]) => {
      const unknown = events.filter((e) => typeof e !== 'string' || !EVENT_TYPES.includes(e));
      if (unknown.length)
        throw new Error(
          `Evento(s) desconhecido(s): ${unknown.map((e) => JSON.stringify(e)).join(', ')}. Eventos permitidos: ${ALLOWED}`,
        );
      return true;
    });

// /v1/webhooks/merchant (spec 4.10-4.14).
export function webhookRoutes({ config }: Deps): Router {
  const router = Router();

  // Declared before /:id so the literal path can never be taken for an id.
  router.get('/events', (_req, res) => {
    res.json({ events: EVENT_CATALOG.map(({ event, description, category }) => ({ event, description, category })) });
  });

  router.post(
    '/',
    ...validate([urlRule(config.publicWebhooksOnly, true), nameRule(), eventsRule()]),
    async (req, res) => {
      const webhook = await createWebhook(req.em, config.secrets, merchantIdOf(req), req.body as CreateWebhookInput);
      res.status(201).json({ webhook });
    },
  );

  router.get('/', async (req, res) => {
    res.json({ webhooks: await listWebhooks(req.em, config.secrets, merchantIdOf(req)) });
  });

  router.patch(
    '/:id',
    ...validate([
      urlRule(config.publicWebhooksOnly, false),
      nameRule(),
      eventsRule(),
      body('status')
        .optional()
        .custom(isOneOf(['ACTIVE', 'INACTIVE']))
        .withMessage('status deve ser ACTIVE ou INACTIVE'),
    ]),
    async (req, res) => {
      res.json({
        webhook: await updateWebhook(req.em, merchantIdOf(req), String(req.params.id), req.body as UpdateWebhookInput),
      });
    },
  );

  router.delete('/:id', async (req, res) => {
    await deleteWebhook(req.em, merchantIdOf(req), String(req.params.id));
    res.json({ message: 'Webhook removido' });
  });

  return router;
}
