// The money of a recurring charge's payment, pure: the ledger transaction that credits the merchant what the payer
// paid less the platform's fee (frozen on its RECURRING charges row at creation), as a charge's payment does, with its
// own kind (statement type RECURRING_CHARGE_PAID).
import { accounts, type LedgerTransaction } from '../ledger/ledger.service.ts';

export type PaidRecurring = { chargeId: string; owner: string; paid: number; fee: number };

/**
 * acquirer -> the owner's net (paid - fee) and the platform's fee; referenced by the RECURRING charges row (one payment
 * per row: the ledger's unique kind + reference), linked to it (the statement names its recurring charge).
 */
export function recurringPaymentTransaction(c: PaidRecurring): LedgerTransaction {
  return {
    kind: 'recurring_charge.payment',
    referenceId: c.chargeId,
    postings: [
      { account: accounts.acquirerSettlement, amount: -c.paid },
      { account: accounts.available(c.owner), amount: c.paid - c.fee, merchantId: c.owner },
      { account: accounts.platformFees, amount: c.fee },
    ],
    links: { chargeId: c.chargeId },
  };
}
