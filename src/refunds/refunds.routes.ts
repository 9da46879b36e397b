import { Router } from 'express';
import type { Services } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { requestRefund } from './refunds.service.ts';

// /v1/charges/:id/refund (contract Refunds), mounted beside the charge routes.
export function refundRoutes(deps: Pick<Services, 'boss' | 'config'>): Router {
  const router = Router();
  router.post('/:id/refund', async (req, res) => {
    // 202: the refund is final when the acquirer confirms it (charge.refunded); the charge stays PAID until then
    res.status(202).json(await requestRefund(deps, req.em, merchantIdOf(req), req.params.id));
  });
  return router;
}
