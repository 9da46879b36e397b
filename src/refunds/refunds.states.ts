// Every status change of a devolução and of an unmatched payment.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { AcquirerDeps, PaymentNotification, RefundResult } from '../acquirer/acquirer.ts';
import { newId } from '../platform/base.entity.ts';
import { ormSql, type Transition } from '../platform/sql.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { refundCompleted } from '../charges/charges.states.ts';
import { refundPostings } from './refunds.money.ts';
import type { UnmatchedReason } from './unmatched-payment.entity.ts';
import * as sql from './refunds.sql.ts';
import { refundView } from './refunds.view.ts';
import { transactional } from '../platform/transaction.ts';

/**
 * Money going back to payers: devoluções (refunds) and the payments that could pay no charge (unmatched). A devolução
 * is requested by a merchant (refunds.service.ts) or by settlement (recordUnmatched), and is final only when the
 * acquirer says so; until then its amount sits on a suspense account of the ledger:
 * - a merchant's refund (all or part of a charge, several at once) holds its amount on suspense:refunds, the merchant's
 *   share from its available balance and the platform's share of the fee (refunds.money.ts); COMPLETED (DEVOLVIDO) ->
 *   the charge's refundedAmount grows (REFUNDED once it is all), the money out; FAILED (NAO_REALIZADO) -> both back.
 * - an unmatched payment is held on suspense:unmatched and returned; RETURN_FAILED keeps it there for an operator.
 */
export const REFUND_TRANSITIONS = {
  complete: { from: ['PROCESSING'], to: 'COMPLETED', event: null },
  fail: { from: ['PROCESSING'], to: 'FAILED', event: null },
} as const satisfies Record<string, Transition<sql.RefundRow['status']>>;

// confirm: a HELD notification the acquirer confirms later, taken over by its settlement (recordUnmatched).
export const UNMATCHED_TRANSITIONS = {
  confirm: { from: ['HELD'], to: 'RETURNING', event: null },
  returned: { from: ['RETURNING'], to: 'RETURNED', event: null },
  returnFailed: { from: ['RETURNING'], to: 'RETURN_FAILED', event: null },
} as const satisfies Record<string, Transition<sql.UnmatchedRow['status']>>;

const COMPLETE_REFUND = sql.COMPLETE_REFUND(REFUND_TRANSITIONS.complete);
const FAIL_REFUND = sql.FAIL_REFUND(REFUND_TRANSITIONS.fail);
const INSERT_UNMATCHED = sql.INSERT_UNMATCHED(UNMATCHED_TRANSITIONS.confirm);
const RETURNED = sql.SETTLE_UNMATCHED('unmatched_returned', UNMATCHED_TRANSITIONS.returned);
const RETURN_FAILED = sql.SETTLE_UNMATCHED('unmatched_return_failed', UNMATCHED_TRANSITIONS.returnFailed);

type Deps = Pick<AcquirerDeps, 'orm' | 'boss' | 'config' | 'logger' | 'acquirer'>;

/**
 * In the settlement's transaction: a payment that paid nothing is recorded once (by endToEndId, over a HELD record of
 * it), held on suspense:unmatched, and its devolução requested. Returns false when it was already recorded.
 */
export async function recordUnmatched(
  deps: Pick<Services, 'boss'>,
  tx: EntityManager,
  n: PaymentNotification,
  reason: UnmatchedReason,
): Promise<boolean> {
  const db = ormSql(tx);
  const [u] = (
    await db.query<sql.UnmatchedRow>(INSERT_UNMATCHED, [newId(), n.endToEndId, n.txid, n.amount, n.paidAt, reason])
  ).map(sql.unmatchedRow);
  if (!u) return false;
  const [refund] = await db.query<sql.RefundRow>(sql.INSERT_REFUND, [
    newId(),
    null,
    null,
    u.id,
    u.end_to_end_id,
    u.amount,
    0,
    null,
    null,
    null,
    null,
    null,
  ]);
  await enqueue(deps.boss, tx, QUEUES.refundSend, { refundId: refund.id });
  await post(tx, 'payment.unmatched', u.id, [
    { account: accounts.acquirerSettlement, amount: -u.amount },
    { account: accounts.unmatchedPayments, amount: u.amount },
  ]);
  return true;
}

/**
 * A notification the acquirer never confirmed, on any retry: recorded HELD as it was notified, for an operator
 * (`payments:unmatched`), and nothing booked (the money may not exist). Should the acquirer confirm it later, it
 * settles as usual: recordUnmatched takes the record over, or a charge it pays releases it (releaseHeld). Returns false
 * when the Pix was already recorded.
 */
export async function recordHeld(tx: EntityManager, n: PaymentNotification): Promise<boolean> {
  const rows = await ormSql(tx).query(sql.INSERT_HELD, [newId(), n.endToEndId, n.txid, n.amount, n.paidAt]);
  return rows.length > 0;
}

// In a settlement's transaction: the HELD records of these Pix, which have just paid their charges, go away.
export async function releaseHeld(tx: EntityManager, endToEndIds: string[]): Promise<void> {
  if (endToEndIds.length) await ormSql(tx).run(sql.RELEASE_HELD, [endToEndIds]);
}

// The refund.send job: asks the acquirer for the devolução (idempotent by its id) and records the answer.
export async function sendRefund(deps: Deps, refundId: string): Promise<void> {
  const [r] = (await ormSql(deps.orm.em.fork()).query<sql.RefundRow>(sql.REFUND_BY_ID, [refundId])).map(sql.refundRow);
  if (!r || r.status !== 'PROCESSING') return;
  const result = await deps.acquirer.refund({
    endToEndId: r.end_to_end_id,
    refundId: r.id,
    amount: r.amount,
    ...(r.reason ? { description: r.reason } : {}),
  });
  await applyRefundResult(deps, r.id, result);
}

const reasonOf = (result: RefundResult) =>
  (result.failureReason ?? 'Devolução não realizada pelo adquirente').slice(0, 255);

// What the acquirer says of a devolução, applied once: every outcome is a guarded UPDATE with its postings and event.
export async function applyRefundResult(deps: Deps, refundId: string, result: RefundResult): Promise<void> {
  if (result.status === 'PROCESSING') {
    await ormSql(deps.orm.em.fork()).run(sql.TOUCH_REFUND, [refundId]);
    return;
  }
  const done = await transactional(deps.orm.em.fork(), async (tx) => {
    // the charge first, as a refund request and an infraction lock it (the lock order): none for an unmatched payment
    const db = ormSql(tx);
    const [c] = await db.query<sql.ChargeOfRefund>(sql.LOCK_CHARGE_OF_REFUND, [refundId]);
    const completed = result.status === 'COMPLETED';
    const [r] = (
      completed
        ? await db.query<sql.RefundRow>(COMPLETE_REFUND, [refundId])
        : await db.query<sql.RefundRow>(FAIL_REFUND, [refundId, reasonOf(result)])
    ).map(sql.refundRow);
    if (!r) return null; // settled already
    if (!c) {
      // an unmatched payment's return: RETURNED (the money out) or RETURN_FAILED (kept on suspense for an operator)
      await db.run(completed ? RETURNED : RETURN_FAILED, [r.unmatched_payment_id]);
      if (completed)
        await post(tx, 'unmatched.return', r.id, [
          { account: accounts.unmatchedPayments, amount: -r.amount },
          { account: accounts.acquirerSettlement, amount: r.amount },
        ]);
      return r;
    }
    // a merchant's refund: COMPLETED adds to the charge's refundedAmount (REFUNDED once it is all, charge.refunded
    // either way) and sends the money out; FAILED gives the hold back, the charge is simply as it was
    const money = {
      amount: r.amount,
      feeAmount: r.fee_amount,
      merchantId: c.merchant_id,
      splits: r.split_shares ?? [],
    };
    if (completed) await refundCompleted(deps, tx, c.id, refundView(r));
    await post(
      tx,
      completed ? 'refund.complete' : 'refund.release',
      r.id,
      refundPostings(completed ? 'complete' : 'release', money),
      { refundId: r.id, chargeId: c.id },
    );
    return r;
  });
  if (done?.status === 'FAILED') {
    // the operator is told: here, and in `npm run ops -- refunds:failed` / `payments:unmatched`
    deps.logger.error(
      {
        refundId,
        chargeId: done.charge_id,
        unmatchedPaymentId: done.unmatched_payment_id,
        reason: done.failure_reason,
      },
      done.charge_id
        ? 'refund not made by the acquirer: the charge is PAID again'
        : 'unmatched payment could not be returned',
    );
  } else if (done) {
    deps.logger.info({ refundId, chargeId: done.charge_id }, 'refund completed by the acquirer');
  }
}

/**
 * Devoluções in progress with no word for `olderThanSeconds` are asked about again; one the acquirer never received is
 * requested again (idempotent by id). One failing refund does not stop the rest.
 */
export async function reconcileRefunds(deps: Deps, { olderThanSeconds }: { olderThanSeconds: number }) {
  const summary = { checked: 0, resent: 0, applied: 0, errors: 0 };
  const em = deps.orm.em.fork();
  const cutoff = new Date(Date.now() - olderThanSeconds * 1000);
  for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
    const batch = await ormSql(em).query<sql.RefundRow>(sql.STALE_REFUNDS, [cutoff, after]);
    for (const r of batch) {
      summary.checked++;
      try {
        const seen = await deps.acquirer.getRefund({ endToEndId: r.end_to_end_id, refundId: r.id });
        if (seen) await applyRefundResult(deps, r.id, seen);
        else await sendRefund(deps, r.id);
        summary[seen ? 'applied' : 'resent']++;
      } catch (err) {
        summary.errors++;
        deps.logger.error({ err, refundId: r.id }, 'refund reconciliation failed');
      }
    }
    if (batch.length < 100) return summary;
    after = batch[batch.length - 1].id;
  }
}
