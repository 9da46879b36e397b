import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { payCharges, type PayOutcome } from '../charges/charges.states.ts';
import { recordUnmatched, unmatchedReason } from '../refunds/refunds.states.ts';

/**
 * Settles confirmed payments in one transaction: the charges they pay (charges.states.ts pay), and every payment that
 * paid nothing recorded as unmatched, held on suspense and sent back to its payer (src/refunds/refunds.states.ts). Every centavo
 * that reached the platform's account is either credited to a merchant or returned.
 */
export async function settlePayments(
  deps: Pick<Services, 'boss' | 'logger'>,
  em: EntityManager,
  batch: PaymentNotification[],
): Promise<PayOutcome[]> {
  const outcomes = await em.transactional(async (tx) => {
    const outcomes = await payCharges(deps, tx, batch);
    for (const [i, n] of batch.entries()) {
      const reason = unmatchedReason(outcomes[i]);
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
