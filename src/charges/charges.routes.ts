import { Router } from 'express';
import { matchedData } from 'express-validator';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { createChargeRules, listChargesRules } from './charges.validation.ts';
import { chargeLocation, createCharge, getCharge, listCharges, type CreateChargeInput } from './charges.service.ts';
import type { ChargeStatus } from './charge.entity.ts';

// /v1/charges (spec 4.6, 4.7; contract Charges).
export function chargeRoutes(deps: AcquirerDeps): Router {
  const router = Router();

  router.post('/', ...validate(createChargeRules), async (req, res) => {
    const b = req.body as Record<string, unknown>; // validated; null optionals are absent
    const input = Object.fromEntries(
      ['amount', 'description', 'expiresIn', 'customer', 'tracking'].filter((k) => b[k] != null).map((k) => [k, b[k]]),
    ) as CreateChargeInput;
    const merchantId = merchantIdOf(req); // 404 Merchant não encontrado for a user without one
    const { charge, replayed } = await createCharge(
      deps,
      req.em,
      { ...req.user!.merchant!, id: merchantId },
      input,
      req.header('x-idempotency-key'),
    );
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 201).json({ charge });
  });

  router.get('/', ...validate(listChargesRules), async (req, res) => {
    const q = matchedData(req, { locations: ['query'] }) as { page?: number; limit?: number; status?: ChargeStatus };
    res.json(
      await listCharges(deps, req.em, merchantIdOf(req), { page: q.page ?? 1, limit: q.limit ?? 20, status: q.status }),
    );
  });

  router.get('/:id', async (req, res) => {
    res.json({ charge: await getCharge(deps, req.em, merchantIdOf(req), req.params.id) });
  });

  return router;
}

// GET /pix/qr/:txid: the payload location a banking app fetches after reading the dynamic QR code (served by us in
// sandbox).
export function pixLocationRoutes(): Router {
  const router = Router();
  router.get('/qr/:txid', async (req, res) => {
    res.json(await chargeLocation(req.em, req.params.txid));
  });
  return router;
}
