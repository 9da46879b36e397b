import { Router } from 'express';
import { merchantIdOf } from '../auth/authenticate.ts';
import { getMerchant, merchantView, type FeeDefaults } from './merchants.service.ts';

export function merchantRoutes(feeDefaults: FeeDefaults): Router {
  const router = Router();
  router.get('/me', async (req, res) => {
    res.json({ merchant: merchantView(await getMerchant(req.em, merchantIdOf(req)), feeDefaults) });
  });
  return router;
}
