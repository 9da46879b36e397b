// /v1/webhooks/merchant: a merchant's webhooks, their deliveries, tests and secrets.
import { Router } from 'express';
import { body, matchedData, type ValidationChain } from 'express-validator';
import type { Services as Deps } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { idempotencyKeyRule, isOneOf, listQueryRules, singleQuery, validate } from '../platform/validation.ts';
import { EVENT_CATALOG, EVENT_TYPES, type EventType } from './catalog.ts';
import { eventSchemas } from './catalog-schemas.ts';
import { headersProblem } from './webhook-headers.ts';
import { dateChecks, dateTimeProblem, instantOfDateTime } from '../platform/dates.ts';
import {
  listDeliveries,
  recoverDeliveries,
  resendDelivery,
  sendTestDelivery,
  type DeliveryFilter,
} from './deliveries.service.ts';
import { canonicalWebhookUrl, URL_MESSAGES, webhookUrlProblem } from './url-policy.ts';
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  MAX_OVERLAP_SECONDS,
  rotateSecret,
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

const headersRule = () =>
  body('headers')
    .optional()
    .custom((value: unknown) => {
      const problem = headersProblem(value);
      if (problem) throw new Error(problem);
      return true;
    });

const rateLimitRule = () =>
  body('rateLimit')
    .optional()
    .custom((v: unknown) => v === null || (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1000))
    .withMessage('rateLimit deve ser um inteiro de 1 a 1000 (entregas por segundo), ou null para sem limite');

const ISO_MESSAGE = (name: string) => `${name} deve ser uma data e hora ISO 8601 com fuso (ex.: 2026-11-25T00:00:00Z)`;
const isoRule = (name: string, required: boolean) => {
  const chain = body(name);
  return dateChecks(
    required ? chain.exists({ values: 'null' }).withMessage(ISO_MESSAGE(name)).bail() : chain.optional(),
    name,
    dateTimeProblem,
    ISO_MESSAGE(name),
  );
};

const deliveryListRules = [
  ...listQueryRules,
  singleQuery('status')
    .custom(isOneOf(['PENDING', 'SUCCEEDED', 'FAILED']))
    .withMessage('status deve ser PENDING, SUCCEEDED ou FAILED'),
  singleQuery('event').custom(isOneOf(EVENT_TYPES)).withMessage(`event deve ser um de: ${ALLOWED}`),
];

// /v1/webhooks/merchant (spec 4.10-4.14, contract "Webhooks: self-service for merchants").
export function webhookRoutes({ config, boss }: Deps): Router {
  const router = Router();
  // built on first use, not at startup: the API starts without parsing the OpenAPI document for it
  let built: ReturnType<typeof eventSchemas> | undefined;
  const schemas = () => (built ??= eventSchemas());

  // Declared before /:id so the literal path can never be taken for an id.
  router.get('/events', (_req, res) => {
    res.json({
      events: EVENT_CATALOG.map(({ event, description, category }) => ({
        event,
        description,
        category,
        schema: schemas().get(event)!.schema,
        example: schemas().get(event)!.example,
      })),
    });
  });

  router.post(
    '/',
    ...validate([
      urlRule(config.publicWebhooksOnly, true),
      nameRule(),
      eventsRule(),
      headersRule(),
      rateLimitRule(),
      idempotencyKeyRule,
    ]),
    async (req, res) => {
      const { webhook, replayed } = await createWebhook(
        req.em,
        config.secrets,
        merchantIdOf(req),
        req.body as CreateWebhookInput,
        req.header('x-idempotency-key'),
      );
      if (replayed) res.setHeader('idempotent-replayed', 'true');
      res.status(replayed ? 200 : 201).json({ webhook });
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
      headersRule(),
      rateLimitRule(),
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

  router.get('/:id/deliveries', ...validate(deliveryListRules), async (req, res) => {
    const {
      page = 1,
      limit = 20,
      status,
      event,
    } = matchedData(req, { locations: ['query'] }) as DeliveryFilter & { page?: number; limit?: number };
    res.json(await listDeliveries(req.em, merchantIdOf(req), String(req.params.id), { status, event }, page, limit));
  });

  router.post('/:id/deliveries/:deliveryId/resend', async (req, res) => {
    const delivery = await resendDelivery(
      req.em,
      boss,
      merchantIdOf(req),
      String(req.params.id),
      String(req.params.deliveryId),
    );
    res.status(202).json({ delivery });
  });

  router.post(
    '/:id/recover',
    ...validate([
      isoRule('since', true),
      isoRule('until', false).custom((until: string, { req }) => {
        const since = instantOfDateTime(req.body?.since);
        if (since && instantOfDateTime(until)! <= since) throw new Error('until deve ser posterior a since');
        return true;
      }),
    ]),
    async (req, res) => {
      const { since, until } = req.body as { since: string; until?: string };
      const recovered = await recoverDeliveries(
        req.em,
        boss,
        merchantIdOf(req),
        String(req.params.id),
        since,
        until ?? new Date().toISOString(),
      );
      res.status(202).json({ recovered });
    },
  );

  router.post(
    '/:id/test',
    ...validate([
      body('event').custom(isOneOf(EVENT_TYPES)).withMessage(`event é obrigatório e deve ser um de: ${ALLOWED}`),
    ]),
    async (req, res) => {
      const delivery = await sendTestDelivery(
        req.em,
        boss,
        schemas(),
        merchantIdOf(req),
        String(req.params.id),
        (req.body as { event: EventType }).event,
      );
      res.status(202).json({ delivery });
    },
  );

  router.post(
    '/:id/secret/rotate',
    ...validate([
      body('overlapSeconds')
        .optional()
        .custom((v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_OVERLAP_SECONDS)
        .withMessage(`overlapSeconds deve ser um inteiro de 0 a ${MAX_OVERLAP_SECONDS}`),
    ]),
    async (req, res) => {
      const { overlapSeconds = MAX_OVERLAP_SECONDS } = (req.body ?? {}) as { overlapSeconds?: number };
      res.json({
        webhook: await rotateSecret(req.em, config.secrets, merchantIdOf(req), String(req.params.id), overlapSeconds),
      });
    },
  );

  return router;
}
