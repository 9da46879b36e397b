// /v1/mandates/:id/charges and /v1/recurring-charges: a mandate's recurring charges.
import { Router, type Request } from 'express';
import { matchedData } from 'express-validator';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { idempotencyKeyRule, validate } from '../platform/validation.ts';
import { inputOf, refundRules } from '../refunds/refunds.routes.ts';
import type { RecurringChargeStatus } from './recurring-charge.entity.ts';
import {
  createRecurringChargeRules,
  listRecurringChargesRules,
  retryRules,
  updateRecurringChargeRules,
} from './recurring-charges.validation.ts';
import {
  createRecurringCharge,
  getRecurringCharge,
  listRecurringCharges,
  listRecurringRefunds,
  requestRecurringRefund,
} from './recurring-charges.service.ts';
import { cancelRecurringCharge, retryRecurringCharge } from './recurring-charges.states.ts';

const idOf = (req: Request) => String(req.params.id);

// POST /v1/mandates/:id/charges (contract: Pix Automático, recurring charges), beside the mandates' routes.
export function mandateChargeRoutes(deps: AcquirerDeps): Router {
  const router = Router();
  router.post('/:id/charges', ...validate(createRecurringChargeRules), async (req, res) => {
    const b = matchedData(req, { locations: ['body'] }) as { dueDate: string; amount: number; description?: string };
    const { recurringCharge, replayed } = await createRecurringCharge(
      deps,
      req.em,
      merchantIdOf(req),
      {
        mandateId: idOf(req),
        dueDate: b.dueDate,
        amount: b.amount,
        ...(b.description != null ? { description: b.description } : {}),
      },
      req.header('x-idempotency-key'),
    );
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 201).json({ recurringCharge });
  });
  return router;
}

// /v1/recurring-charges: list, one, cancel, retries, refunds.
export function recurringChargeRoutes(deps: AcquirerDeps): Router {
  const router = Router();
  router.get('/', ...validate(listRecurringChargesRules), async (req, res) => {
    const q = matchedData(req, { locations: ['query'] }) as {
      page?: number;
      limit?: number;
      mandateId?: string;
      status?: RecurringChargeStatus;
    };
    res.json(
      await listRecurringCharges(req.em, merchantIdOf(req), {
        page: q.page ?? 1,
        limit: q.limit ?? 20,
        mandateId: q.mandateId,
        status: q.status,
      }),
    );
  });
  router.get('/:id', async (req, res) => {
    res.json({ recurringCharge: await getRecurringCharge(req.em, merchantIdOf(req), idOf(req)) });
  });
  router.patch('/:id', ...validate(updateRecurringChargeRules), async (req, res) => {
    res.json({ recurringCharge: await cancelRecurringCharge(deps, req.em, merchantIdOf(req), idOf(req)) });
  });
  router.post('/:id/retries', ...validate([idempotencyKeyRule, ...retryRules]), async (req, res) => {
    const { date } = matchedData(req, { locations: ['body'] }) as { date: string };
    const recurringCharge = await retryRecurringCharge(deps, req.em, merchantIdOf(req), idOf(req), date);
    res.status(202).json({ recurringCharge });
  });
  router.post('/:id/refunds', ...validate(refundRules), async (req, res) => {
    const { replayed, ...created } = await requestRecurringRefund(
      deps,
      req.em,
      merchantIdOf(req),
      idOf(req),
      inputOf(req),
      req.header('x-idempotency-key'),
    );
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 202).json(created);
  });
  router.get('/:id/refunds', async (req, res) => {
    res.json(await listRecurringRefunds(req.em, merchantIdOf(req), idOf(req)));
  });
  return router;
}
