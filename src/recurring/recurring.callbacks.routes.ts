// The PSP's callbacks about recs and cobrs (apipix), queued to be asked about.
import express, { Router } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Services } from '../platform/services.ts';
import { UnauthorizedError, ValidationError } from '../platform/errors.ts';
import { enqueueMany, QUEUES, type RecurringCallbackJob } from '../platform/queue.ts';

const REC_ID = /^R[RN][0-9A-Z]{8}[0-9]{8}[a-zA-Z0-9]{11}$/;
const TXID = /^[a-zA-Z0-9]{26,35}$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest();
type Item = Record<string, unknown>;
const asItem = (v: unknown): Item => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Item) : {});

// The callback's list (`recs` or `cobsr`, 1..1000 objects), each naming its subject by `field`, or 400.
function subjects(body: unknown, list: 'recs' | 'cobsr', field: 'idRec' | 'txid', pattern: RegExp): string[] {
  const items = asItem(body)[list];
  if (!Array.isArray(items) || items.length === 0 || items.length > 1000)
    throw new ValidationError([{ field: list, message: `${list} deve ser uma lista de 1 a 1000 objetos` }]);
  return items.map((item, i) => {
    const id = asItem(item)[field];
    if (typeof id !== 'string' || !pattern.test(id))
      throw new ValidationError([{ field: `${list}[${i}].${field}`, message: `${field} inválido` }]);
    return id;
  });
}

/**
 * POST /v1/acquirer/apipix/:token/rec and /:token/cobr (ACQUIRER=apipix): the PSP's Pix Automático callbacks, the
 * webhookrec and webhookcobr URLs `npm run ops -- acquirer:webhook` registers (the Pix webhook's, the PSP appending
 * /rec or /cobr). Authenticated by the same token (constant time; a wrong one is 401 and changes nothing). Only the
 * ids are read: each rec or cobr named is queued once and asked about again by the worker (src/recurring/
 * recurring.callbacks.ts); a periodic listing catches the callbacks that never come.
 */
export function recurringCallbackRoutes({ config, boss }: Pick<Services, 'config' | 'boss'>): Router {
  const router = Router();
  const token = sha256(config.apipix!.webhookToken);
  const auth = (given: unknown) => {
    if (!timingSafeEqual(sha256(String(given)), token)) throw new UnauthorizedError('Token do webhook inválido');
  };
  const queueAll = async (jobs: RecurringCallbackJob[], key: (j: RecurringCallbackJob) => string) => {
    const many = jobs.map((data) => ({ data, singletonKey: key(data) }));
    await enqueueMany(boss, null, QUEUES.recurringCallback, many);
  };
  router.post('/:token/rec', express.json({ limit: '1mb' }), async (req, res) => {
    auth(req.params.token);
    const ids = [...new Set(subjects(req.body, 'recs', 'idRec', REC_ID))];
    await queueAll(
      ids.map((recId) => ({ recId })),
      (j) => `rec:${(j as { recId: string }).recId}`,
    );
    res.json({ received: ids.length });
  });
  router.post('/:token/cobr', express.json({ limit: '1mb' }), async (req, res) => {
    auth(req.params.token);
    const ids = [...new Set(subjects(req.body, 'cobsr', 'txid', TXID))];
    await queueAll(
      ids.map((txid) => ({ txid })),
      (j) => `cobr:${(j as { txid: string }).txid}`,
    );
    res.json({ received: ids.length });
  });
  return router;
}
