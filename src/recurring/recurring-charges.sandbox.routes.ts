// /v1/sandbox/recurring-charges: the payer's PSP settles an attempt, in the sandbox.
import { Router } from 'express';
import { matchedData } from 'express-validator';
import type { Services } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { attemptRules } from './recurring-charges.validation.ts';
import { simulateAttempt } from './recurring-charges.service.ts';

// /v1/sandbox/recurring-charges (only with ACQUIRER=sandbox): the payer's PSP settles the SCHEDULED attempt. PAID
// arrives asynchronously (202: the payment goes through the settlement); a rejection is immediate (200).
export function recurringChargeSandboxRoutes(deps: Pick<Services, 'boss' | 'clock'>): Router {
  const router = Router();
  router.post('/recurring-charges/:id/attempt', ...validate(attemptRules), async (req, res) => {
    const b = matchedData(req, { locations: ['body'] }) as { outcome: 'PAID' | 'REJECTED'; failureCode?: string };
    const done = await simulateAttempt(deps, req.em, merchantIdOf(req), String(req.params.id), {
      outcome: b.outcome,
      ...(b.failureCode != null ? { failureCode: b.failureCode } : {}),
    });
    if (done.paid)
      res.status(202).json({
        message: 'Pagamento simulado enviado; a cobrança recorrente ficará PAID em instantes',
        endToEndId: done.endToEndId,
        recurringCharge: done.recurringCharge,
      });
    else res.json({ recurringCharge: done.recurringCharge });
  });
  return router;
}
