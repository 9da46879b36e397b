// A notification that exhausted its retries: recorded, never left in a dead letter queue.
import type { AcquirerDeps, PaymentNotification } from '../acquirer/acquirer.ts';
import { pixTime } from '../pix/time.ts';
import { transactional } from '../platform/transaction.ts';
import { recordHeld, recordUnmatched } from '../refunds/refunds.states.ts';
import { settlePayments } from './settlement.ts';
import * as sql from './payments.sql.ts';
import { ormSql } from '../platform/sql.ts';

// What became of a notification that exhausted its retries (pix_payments_unsettled_total's `outcome`).
export type UnsettledOutcome = 'settled' | 'returning' | 'held' | 'ignored';

/**
 * The time a payment settles with: the acquirer's, unless it is no time this service can store (pixTime) or lies
 * ahead of the moment the service learnt of the payment; then that moment, an upper bound of the real one (nothing is
 * paid before it is received), so a payment it makes late for its charge is returned, never one paid in time refused.
 * A payment the sandbox simulates (`simulated`: POST /v1/sandbox/charges/:id/pay, never a notification) keeps the
 * simulated time, which may lie ahead: a payment after a due date is the point of simulating one.
 */
export function settledTime(paidAt: string, learntAt: Date, simulated = false): string {
  const at = pixTime(paidAt);
  if (at !== null && simulated) return new Date(at).toISOString();
  return new Date(at === null ? learntAt.getTime() : Math.min(at, learntAt.getTime())).toISOString();
}

/**
 * A notification that failed on every retry lands in its dead letter queue (QUEUES.paymentUnsettled), and is never
 * left there: the acquirer is asked once more, then
 * - it confirms the Pix: one more settlement; should that fail too, the payment is recorded as unmatched (UNSETTLED),
 *   held on suspense and returned to its payer, in a transaction of its own;
 * - it cannot be asked (no answer, or one that breaks its standard): recorded HELD (UNCONFIRMED) as notified, nothing
 *   booked, for an operator; reconciliation settles it should the acquirer list it later;
 * - it does not know the Pix: nothing, as for any notification it does not confirm.
 * A payment settled meanwhile (by reconciliation, a redelivery) is left as it is.
 */
export async function settleUnsettled(
  deps: Pick<AcquirerDeps, 'orm' | 'boss' | 'config' | 'logger' | 'acquirer'>,
  n: PaymentNotification,
): Promise<UnsettledOutcome> {
  if ((await ormSql(deps.orm.em.fork()).query(sql.KNOWN_PAYMENTS, [[n.endToEndId]])).length) return 'settled';
  const learntAt = new Date();
  let confirmed: PaymentNotification | null;
  try {
    confirmed = await deps.acquirer.confirmPayment(n);
  } catch (err) {
    const held = { ...n, paidAt: settledTime(n.paidAt, learntAt, n.simulated) };
    const recorded = await transactional(deps.orm.em.fork(), (tx) => recordHeld(tx, held));
    deps.logger.error(
      { err, endToEndId: n.endToEndId },
      'payment never confirmed by the acquirer: held for an operator',
    );
    return recorded ? 'held' : 'settled';
  }
  if (!confirmed) return 'ignored';
  const payment = { ...confirmed, paidAt: settledTime(confirmed.paidAt, learntAt, confirmed.simulated) };
  try {
    const [outcome] = await settlePayments(deps, deps.orm.em.fork(), [payment]);
    return outcome === 'paid' || outcome === 'duplicate' ? 'settled' : 'returning';
  } catch (err) {
    deps.logger.error({ err, endToEndId: n.endToEndId }, 'payment could not be settled: returned to the payer');
    const recorded = await transactional(deps.orm.em.fork(), (tx) => recordUnmatched(deps, tx, payment, 'UNSETTLED'));
    return recorded ? 'returning' : 'settled';
  }
}
