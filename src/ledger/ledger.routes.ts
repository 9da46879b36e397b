// /v1/merchants/me/balance: the merchant's balance.
import { Router } from 'express';
import { merchantIdOf } from '../auth/authenticate.ts';
import { getBalance } from './ledger.service.ts';

// GET /v1/merchants/me/balance: the merchant's balance, from the ledger.
export function balanceRoutes(): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await getBalance(req.em, merchantIdOf(req)));
  });
  return router;
}
