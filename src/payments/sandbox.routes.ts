import { Router } from 'express';
import type { Services } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { simulatePayment } from './payments.service.ts';

// /v1/sandbox (only with ACQUIRER=sandbox): simulate what a payer would do.
export function sandboxRoutes(deps: Pick<Services, 'boss'>): Router {
  const router = Router();
  // The payer pays: the same notification a real acquirer sends, through the same queue; PAID arrives asynchronously.
  router.post('/charges/:id/pay', async (req, res) => {
    const { endToEndId } = await simulatePayment(deps, req.em, merchantIdOf(req), req.params.id);
    res.status(202).json({ message: 'Pagamento simulado enviado; a cobrança ficará PAID em instantes', endToEndId });
  });
  return router;
}
