// /v1/events: the merchant's events, listed, read, and streamed (server-sent events).
import { Router } from 'express';
import { header, matchedData } from 'express-validator';
import { merchantIdOf } from '../auth/authenticate.ts';
import { holdCredential } from '../auth/auth.service.ts';
import { isOneOf, listQueryRules, singleQuery, validate } from '../platform/validation.ts';
import { EVENT_TYPES } from '../webhooks/catalog.ts';
import { getEvent, listEvents, type EventFilter } from './events.service.ts';
import { openStream } from './stream.ts';
import type { EventStreams } from './streams.ts';

const listRules = [
  ...listQueryRules,
  singleQuery('type')
    .custom(isOneOf(EVENT_TYPES))
    .withMessage(`type deve ser um de: ${EVENT_TYPES.join(', ')}`),
  singleQuery('resourceId')
    .isUUID()
    .withMessage('resourceId deve ser o id (UUID) de uma cobrança, saque, chave PIX ou infração'),
];

// Last-Event-ID (what EventSource sends when it reconnects) wins over ?after (the URL it was first opened with).
const streamRules = [
  header('last-event-id')
    .optional({ values: 'falsy' })
    .isUUID()
    .withMessage('Last-Event-ID deve ser o id (UUID) de um evento'),
  singleQuery('after').isUUID().withMessage('after deve ser o id (UUID) de um evento'),
];

// /v1/events (contract "Events API and stream").
export function eventRoutes(streams: EventStreams): Router {
  const router = Router();

  router.get('/', ...validate(listRules), async (req, res) => {
    const {
      page = 1,
      limit = 20,
      type,
      resourceId,
    } = matchedData(req, { locations: ['query'] }) as EventFilter & {
      page?: number;
      limit?: number;
    };
    res.json(await listEvents(req.em, merchantIdOf(req), { type, resourceId: resourceId?.toLowerCase() }, page, limit));
  });

  // Declared before /:id so the literal path can never be taken for an id.
  router.get('/stream', ...validate(streamRules), async (req, res) => {
    const { after } = matchedData(req, { locations: ['query'] }) as { after?: string };
    const merchantId = merchantIdOf(req);
    const token = req.headers.authorization!.slice('Bearer '.length); // made canonical by the authenticator
    const credential = holdCredential(token, req.user!);
    await openStream(streams, res, merchantId, (req.get('last-event-id') || after)?.toLowerCase(), credential);
  });

  router.get('/:id', async (req, res) => {
    res.json({ event: await getEvent(req.em, merchantIdOf(req), String(req.params.id)) });
  });

  return router;
}
