import { Router } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { BusinessRuleError } from '../platform/errors.ts';
import { findCharge } from '../charges/charges.service.ts';
import { approveRules, payerCancelRules } from './mandates.validation.ts';
import { getMandate } from './mandates.service.ts';
import { approveMandate, cancelMandate, rejectMandate } from './mandates.states.ts';

// How the sandbox payer pays a charge: the payment notification a real acquirer sends, through the same queue
// (src/payments simulatePayment; given by the composition, since payments sits above this module).
export type PayCharge = (em: EntityManager, merchantId: string, chargeId: string) => Promise<unknown>;

const reasonOf = (req: { body?: unknown }) => {
  const reason = (req.body as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : null;
};

// /v1/sandbox/mandates (only with ACQUIRER=sandbox, the merchant's own mandates): what the payer would do in the
// banking app. Each calls the use case a PSP's word calls (mandates.states.ts).
export function sandboxMandateRoutes(deps: Pick<Services, 'boss' | 'clock' | 'config'>, payCharge: PayCharge): Router {
  const router = Router();

  // The payer approves (with a maximum for a variable mandate); QR_WITH_PAYMENT and DUE_DATE_QR also pay the charge,
  // and only the approval that happened pays it (a repeat, or one that lost to a cancellation, pays nothing).
  router.post('/mandates/:id/approve', ...validate(approveRules), async (req, res) => {
    const merchantId = merchantIdOf(req);
    const current = await getMandate(deps, req.em, merchantId, String(req.params.id));
    const charge = current.chargeId ? await findCharge(deps, req.em, merchantId, current.chargeId) : null;
    if (current.status === 'CREATED' && charge && charge.status !== 'PENDING' && charge.status !== 'PAID')
      throw new BusinessRuleError(`A cobrança da autorização não pode mais ser paga (${charge.status})`);
    const payerMaxAmount = (req.body as { payerMaxAmount?: number | null }).payerMaxAmount ?? null;
    const { mandate, changed } = await approveMandate(deps, req.em, { mandateId: current.id, payerMaxAmount });
    if (!changed && mandate.status !== 'APPROVED')
      throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser aprovada`);
    if (changed && charge?.status === 'PENDING') await payCharge(req.em, merchantId, charge.id);
    res.json({ mandate });
  });

  // The payer rejects (a QR_WITH_PAYMENT charge already paid stays PAID).
  router.post('/mandates/:id/reject', async (req, res) => {
    const current = await getMandate(deps, req.em, merchantIdOf(req), String(req.params.id));
    const { mandate, changed } = await rejectMandate(deps, req.em, { mandateId: current.id });
    if (!changed && mandate.status !== 'REJECTED')
      throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser rejeitada`);
    res.json({ mandate });
  });

  // The payer cancels in the banking app: as the merchant's cancellation, by PAYER.
  router.post('/mandates/:id/payer-cancel', ...validate(payerCancelRules), async (req, res) => {
    const current = await getMandate(deps, req.em, merchantIdOf(req), String(req.params.id));
    const { mandate, changed } = await cancelMandate(deps, req.em, {
      mandateId: current.id,
      by: 'PAYER',
      reason: reasonOf(req),
    });
    if (!changed) throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser cancelada`);
    res.json({ mandate });
  });

  return router;
}
