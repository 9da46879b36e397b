import { Router } from 'express';
import type { Services } from '../platform/services.ts';
import type { Acquirer } from '../acquirer/acquirer.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { chargeLocation, simulatePayment } from '../charges/charges.service.ts';

type Deps = Services & { acquirer: Acquirer };

// /v1/sandbox (only with ACQUIRER=sandbox): simulate what a payer would do.
export function sandboxRoutes(deps: Deps): Router {
  const router = Router();
  // The payer pays: the same notification a real acquirer sends, through the same queue; PAID arrives asynchronously.
  router.post('/charges/:id/pay', async (req, res) => {
    const { endToEndId } = await simulatePayment(deps, req.em, merchantIdOf(req), req.params.id);
    res.status(202).json({ message: 'Pagamento simulado enviado; a cobrança ficará PAID em instantes', endToEndId });
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
