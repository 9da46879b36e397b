// Settlement: confirmed payments paid into their charges, or kept as unmatched to go back.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { payCharges, type PayOutcome } from './settle.ts';
import { recordUnmatched, releaseHeld } from '../refunds/refunds.states.ts';
import type { UnmatchedReason } from '../refunds/unmatched-payment.entity.ts';
import { coverAfterCredit } from '../infractions/infractions.holds.ts';
import { transactional } from '../platform/transaction.ts';
import { recurringChargesPaid } from '../recurring/recurring-charges.states.ts';

// What settlement makes of each outcome of a payment: a payment that paid nothing is kept as unmatched, for this
// reason, and returned to its payer; the rest are logged as they are.
const UNMATCHED: Record<PayOutcome, UnmatchedReason | null> = {
  paid: null,
  duplicate: null, // a redelivery of a payment that already paid its charge
  unknown: 'UNKNOWN_CHARGE',
  late: 'EXPIRED',
  already_paid: 'ALREADY_PAID',
  mismatch: 'AMOUNT_MISMATCH',
};

/**
 * Settles confirmed payments in one transaction, down the modules: the charges they pay (settle.ts: the pay
 * transition of src/charges, with its ledger split and charge.paid; a recurring charge's RECURRING row: src/recurring marks it PAID, with
 * recurring_charge.paid and its ledger transaction), every payment that paid nothing recorded as unmatched, held on suspense and sent back
 * to its payer (src/refunds), and the credits of merchants who owe MED infractions blocked right after (src/infractions).
 * Every centavo that reached the platform's account is either credited to a merchant or returned.
 */
export async function settlePayments(
  deps: Pick<Services, 'boss' | 'config' | 'logger'>,
  em: EntityManager,
  batch: PaymentNotification[],
): Promise<PayOutcome[]> {
  const outcomes = await transactional(em, async (tx) => {
    const { outcomes, credited } = await payCharges(deps, tx, batch, (t, rows) => recurringChargesPaid(deps, t, rows));
    await releaseHeld(
      tx,
      batch.filter((_, i) => outcomes[i] === 'paid').map((n) => n.endToEndId),
    );
    await coverAfterCredit(deps, tx, credited);
    for (const [i, n] of batch.entries()) {
      const reason = UNMATCHED[outcomes[i]];
      if (reason) await recordUnmatched(deps, tx, n, reason);
    }
    return outcomes;
  });
  batch.forEach((n, i) => {
    // after the commit: a rolled-back settlement logs nothing
    const fields = { txid: n.txid, endToEndId: n.endToEndId, amount: n.amount };
    if (outcomes[i] === 'paid') deps.logger.info(fields, 'charge paid');
    else if (outcomes[i] === 'duplicate') deps.logger.info(fields, 'payment already settled');
    else deps.logger.warn({ ...fields, result: outcomes[i] }, 'payment paid no charge: held and returned to the payer');
  });
  return outcomes;
}
