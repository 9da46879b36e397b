// /v1/merchants/me: the authenticated merchant.
import { Router } from 'express';
import { merchantIdOf } from '../auth/authenticate.ts';
import { getMerchantView, type FeeDefaults } from './merchants.service.ts';

export function merchantRoutes(feeDefaults: FeeDefaults): Router {
  const router = Router();
  router.get('/me', async (req, res) => {
    res.json({ merchant: await getMerchantView(req.em, merchantIdOf(req), feeDefaults) });
  });
  return router;
}
