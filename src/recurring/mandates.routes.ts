// /v1/mandates: a merchant's Pix Automático mandates.
import { Router } from 'express';
import { matchedData } from 'express-validator';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import type { Services } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import type { MandateStatus } from './mandate.entity.ts';
import { createMandateRules, listMandatesRules, patchMandateRules } from './mandates.validation.ts';
import { getMandate, listMandates, mandateLocation, patchMandate, requestAgain } from './mandates.service.ts';
import { createMandate, type CreateMandateInput } from './mandates.create.ts';

const INPUT_FIELDS = [
  'journey',
  'customer',
  'contract',
  'object',
  'frequency',
  'startDate',
  'endDate',
  'amount',
  'minAmount',
  'retryPolicy',
  'expiresIn',
  'payerAccount',
  'firstPayment',
  'chargeId',
  'autoCharge',
];

// /v1/mandates (contract: Pix Automático, Mandates).
export function mandateRoutes(deps: AcquirerDeps): Router {
  const router = Router();
  const today = () => saoPauloDate(deps.clock());

  router.post('/', ...validate(createMandateRules(today)), async (req, res) => {
    const b = req.body as Record<string, unknown>; // validated; null optionals are absent
    const input = Object.fromEntries(
      INPUT_FIELDS.filter((k) => b[k] != null).map((k) => [k, b[k]]),
    ) as CreateMandateInput;
    const merchantId = merchantIdOf(req);
    const { mandate, replayed } = await createMandate(
      deps,
      req.em,
      { ...req.user!.merchant!, id: merchantId },
      input,
      req.header('x-idempotency-key'),
    );
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 201).json({ mandate });
  });

  router.get('/', ...validate(listMandatesRules), async (req, res) => {
    const q = matchedData(req, { locations: ['query'] }) as {
      page?: number;
      limit?: number;
      status?: MandateStatus;
      customerDocument?: string;
    };
    res.json(
      await listMandates(deps, req.em, merchantIdOf(req), {
        page: q.page ?? 1,
        limit: q.limit ?? 20,
        status: q.status,
        customerDocument: q.customerDocument,
      }),
    );
  });

  router.get('/:id', async (req, res) => {
    res.json({ mandate: await getMandate(deps, req.em, merchantIdOf(req), String(req.params.id)) });
  });

  router.patch('/:id', ...validate(patchMandateRules), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    res.json({ mandate: await patchMandate(deps, req.em, merchantIdOf(req), String(req.params.id), body) });
  });

  router.post('/:id/request', async (req, res) => {
    res.status(202).json({ mandate: await requestAgain(deps, req.em, merchantIdOf(req), String(req.params.id)) });
  });

  return router;
}

// GET /pix/rec/:recId: the recurrence's payload location a banking app fetches after reading a QR journey's BR Code
// (field 80; served by us in sandbox), shaped like an API Pix `rec`.
export function pixRecLocationRoutes(_deps: Pick<Services, 'clock'>): Router {
  const router = Router();
  router.get('/rec/:recId', async (req, res) => {
    res.json(await mandateLocation(req.em, String(req.params.recId)));
  });
  return router;
}
