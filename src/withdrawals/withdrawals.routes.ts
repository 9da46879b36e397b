// /v1/merchants/me/withdrawals: create, read and list withdrawals.
import { Router } from 'express';
import { matchedData } from 'express-validator';
import type { Services as Deps } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { listQueryRules, validate } from '../platform/validation.ts';
import { createWithdrawal, getWithdrawal, listWithdrawals, type WithdrawalInput } from './withdrawals.service.ts';
import { createWithdrawalRules } from './withdrawals.validation.ts';

// /v1/merchants/me/withdrawals (spec 4.8, 4.9; contract "Withdrawals").
export function withdrawalRoutes(deps: Deps): Router {
  const router = Router();

  router.post('/', ...validate(createWithdrawalRules), async (req, res) => {
    const { amount, pixKey, pixKeyType, description } = req.body as WithdrawalInput;
    const key = req.get('x-idempotency-key');
    const { withdrawal, replayed } = await createWithdrawal(
      deps,
      req.em,
      merchantIdOf(req),
      { amount, pixKey, pixKeyType, description: description ?? null },
      key,
    );
    if (replayed) res.set('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 201).json({ withdrawal });
  });

  router.get('/', ...validate(listQueryRules), async (req, res) => {
    // Express 5's req.query is read-only: the sanitized (integer) values live in matchedData
    const { page = 1, limit = 20 } = matchedData(req, { locations: ['query'] }) as { page?: number; limit?: number };
    res.json(await listWithdrawals(req.em, merchantIdOf(req), page, limit));
  });

  // Not in the spec: one withdrawal, to follow it without paging (404 for unknown ids and other merchants' ids).
  router.get('/:id', async (req, res) => {
    res.json({ withdrawal: await getWithdrawal(req.em, merchantIdOf(req), String(req.params.id)) });
  });

  return router;
}
