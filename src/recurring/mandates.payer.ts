// The sandbox payer (ACQUIRER=sandbox): what a payer does in the banking app with one of the merchant's mandates, as
// use cases over mandates.states.ts (the ones a PSP's word calls), with the checks a real PSP makes first.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { BusinessRuleError } from '../platform/errors.ts';
import { findCharge } from '../charges/charges.get.ts';
import { getMandate } from './mandates.service.ts';
import { approveMandate, cancelMandate, rejectMandate } from './mandates.states.ts';

// How the sandbox payer pays a charge: the payment notification a real acquirer sends, through the same queue
// (src/payments simulatePayment; given by the composition, since payments sits above this module).
export type PayCharge = (em: EntityManager, merchantId: string, chargeId: string) => Promise<unknown>;

type Deps = Pick<AcquirerDeps, 'boss' | 'clock' | 'config'>;

/**
 * The payer approves, within expiresAt, with a maximum of at least minAmount (a variable mandate's). QR_WITH_PAYMENT
 * and DUE_DATE_QR also pay the charge, and only the approval that happened pays it (a repeat, or one that lost to a
 * cancellation, pays nothing; a charge the payer already paid is not paid again). Approving an APPROVED one again
 * answers it unchanged; another state 422.
 */
export async function payerApproves(
  deps: Deps,
  em: EntityManager,
  payCharge: PayCharge,
  input: { merchantId: string; mandateId: string; payerMaxAmount: number | null },
) {
  const current = await getMandate(deps, em, input.merchantId, input.mandateId);
  if (current.status === 'CREATED') {
    if (Date.parse(current.expiresAt) <= deps.clock().getTime())
      throw new BusinessRuleError(
        `Autorização expirou em ${current.expiresAt}: o pagador não pode mais aprová-la`,
        'mandate_expired',
      );
    const { payerMaxAmount: max } = input;
    if (current.amount === null && current.minAmount !== null && max !== null && max < current.minAmount)
      throw new BusinessRuleError(
        `payerMaxAmount deve ser maior ou igual a minAmount (${current.minAmount})`,
        'payer_max_amount_too_low',
      );
  }
  const charge = current.chargeId ? await findCharge(em, input.merchantId, current.chargeId) : null;
  if (current.status === 'CREATED' && charge && charge.status !== 'PENDING' && charge.status !== 'PAID')
    throw new BusinessRuleError(
      `A cobrança da autorização não pode mais ser paga (${charge.status})`,
      'mandate_charge_not_payable',
    );
  const { mandate, changed } = await approveMandate(deps, em, {
    mandateId: current.id,
    payerMaxAmount: input.payerMaxAmount,
  });
  if (!changed && mandate.status !== 'APPROVED')
    throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser aprovada`, 'mandate_not_approvable');
  if (changed && charge?.status === 'PENDING') await payCharge(em, input.merchantId, charge.id);
  return mandate;
}

// The payer rejects (a QR_WITH_PAYMENT charge already paid stays PAID). Again on a REJECTED one: unchanged.
export async function payerRejects(deps: Deps, em: EntityManager, merchantId: string, mandateId: string) {
  const current = await getMandate(deps, em, merchantId, mandateId);
  const { mandate, changed } = await rejectMandate(deps, em, { mandateId: current.id });
  if (!changed && mandate.status !== 'REJECTED')
    throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser rejeitada`, 'mandate_not_rejectable');
  return mandate;
}

// The payer cancels in the banking app: as the merchant's cancellation (and its cascade), by PAYER.
export async function payerCancels(
  deps: Deps & Pick<AcquirerDeps, 'acquirer'>,
  em: EntityManager,
  input: { merchantId: string; mandateId: string; reason: string | null },
) {
  const current = await getMandate(deps, em, input.merchantId, input.mandateId);
  const { mandate, changed } = await cancelMandate(deps, em, {
    mandateId: current.id,
    by: 'PAYER',
    reason: input.reason,
  });
  if (!changed)
    throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser cancelada`, 'mandate_not_cancelable');
  return mandate;
}
