import { Router } from 'express';
import { matchedData } from 'express-validator';
import type { Deps } from '../deps.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { createChargeRules, listChargesRules } from './charges.validation.ts';
import { createCharge, getCharge, listCharges, type CreateChargeInput, type CustomerInput } from './charges.service.ts';
import { refundCharge } from './refunds.service.ts';
import { chargeView } from './charge.view.ts';
import type { ChargeStatus } from './charge.entity.ts';

// /v1/charges (spec 4.6, 4.7; contract Charges).
export function chargeRoutes(deps: Deps): Router {
  const router = Router();

  router.post('/', ...validate(createChargeRules), async (req, res) => {
    const b = req.body as Record<string, unknown>;
    const input: CreateChargeInput = {
      amount: b.amount as number,
      description: b.description as string,
      expiresIn: (b.expiresIn as number | undefined) ?? 86400,
      ...(b.customer ? { customer: b.customer as CustomerInput } : {}),
      ...(b.tracking ? { tracking: b.tracking as Record<string, string> } : {}),
    };
    const key = req.header('x-idempotency-key');
    merchantIdOf(req); // 404 Merchant não encontrado for a user without one
    const { charge, replayed } = await createCharge(deps, req.em, req.user!.merchant!, input, key);
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 201).json({ charge });
  });

  router.get('/', ...validate(listChargesRules), async (req, res) => {
    const q = matchedData(req, { locations: ['query'] }) as { page?: number; limit?: number; status?: ChargeStatus };
    res.json(await listCharges(req.em, merchantIdOf(req), { page: q.page ?? 1, limit: q.limit ?? 20, status: q.status }));
  });

  router.get('/:id', async (req, res) => {
    const charge = await getCharge(req.em, merchantIdOf(req), req.params.id);
    res.json({ charge: chargeView(charge, charge.customer ?? null, { image: true, tracking: true }) });
  });

  router.post('/:id/refund', async (req, res) => {
    res.json({ charge: await refundCharge(deps, req.em, merchantIdOf(req), req.params.id) });
  });

  return router;
}
