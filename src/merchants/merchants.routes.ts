import { Router } from 'express';
import { merchantIdOf } from '../auth/authenticate.ts';
import { merchantBalance } from '../ledger/ledger.service.ts';
import { getMerchant, merchantView, type FeeDefaults } from './merchants.service.ts';

export function merchantRoutes(feeDefaults: FeeDefaults): Router {
  const router = Router();
  router.get('/me', async (req, res) => {
    res.json({ merchant: merchantView(await getMerchant(req.em, merchantIdOf(req)), feeDefaults) });
  });
  // Derived from the ledger: available can be withdrawn; blocked is held (e.g. by an open infraction).
  router.get('/me/balance', async (req, res) => {
    res.json({ ...(await merchantBalance(req.em, merchantIdOf(req))), currency: 'BRL' });
  });
  return router;
}
