// /v1/sandbox/mandates: what a payer would do to a mandate, in the sandbox.
import { Router } from 'express';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { approveRules, payerCancelRules } from './mandates.validation.ts';
import { payerApproves, payerCancels, payerRejects, type PayCharge } from './mandates.payer.ts';

type Body = Record<string, unknown> | undefined; // validated; absent on a bodiless request

// /v1/sandbox/mandates (only with ACQUIRER=sandbox, the merchant's own mandates): what the payer would do in the
// banking app (mandates.payer.ts).
export function sandboxMandateRoutes(
  deps: Pick<AcquirerDeps, 'boss' | 'clock' | 'config' | 'acquirer'>,
  payCharge: PayCharge,
): Router {
  const router = Router();

  router.post('/mandates/:id/approve', ...validate(approveRules), async (req, res) => {
    const payerMaxAmount = ((req.body as Body)?.payerMaxAmount as number | null | undefined) ?? null;
    const mandateId = String(req.params.id);
    res.json({
      mandate: await payerApproves(deps, req.em, payCharge, {
        merchantId: merchantIdOf(req),
        mandateId,
        payerMaxAmount,
      }),
    });
  });

  router.post('/mandates/:id/reject', async (req, res) => {
    res.json({ mandate: await payerRejects(deps, req.em, merchantIdOf(req), String(req.params.id)) });
  });

  router.post('/mandates/:id/payer-cancel', ...validate(payerCancelRules), async (req, res) => {
    const reason = ((req.body as Body)?.reason as string | null | undefined) ?? null;
    const mandateId = String(req.params.id);
    res.json({ mandate: await payerCancels(deps, req.em, { merchantId: merchantIdOf(req), mandateId, reason }) });
  });

  return router;
}
