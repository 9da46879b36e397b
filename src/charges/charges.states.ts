import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { AcquirerDeps, PaymentNotification } from '../acquirer/acquirer.ts';
import { pgArray } from '../platform/sql.ts';
import { enqueueMany, QUEUES } from '../platform/queue.ts';
import { accounts, postMany } from '../ledger/ledger.service.ts';
import { recordEvents } from '../webhooks/events.ts';
import type { ChargeStatus } from './charge.entity.ts';
import * as sql from './charges.sql.ts';
import { chargeRowView } from './charges.view.ts';
import { transactional } from '../platform/transaction.ts';

/**
 * Every status change of a charge. Each transition is one guarded UPDATE (`where status in (from)`), so it happens once
 * whatever the concurrency, and commits with its event and its ledger posting in the caller's transaction. Creation
 * (-> PENDING) is in charges.service.ts; the payments and refunds that drive these are in src/payments/settlement.ts
 * and src/refunds/refunds.states.ts.
 */
export const CHARGE_TRANSITIONS = {
  // a confirmed payment of the amount, dated within the validity; CANCELED only when the expiry came after the payment
  pay: { from: ['PENDING', 'CANCELED'], to: 'PAID', event: 'charge.paid' },
  // past createdAt + expiresIn (contract: no event)
  expire: { from: ['PENDING'], to: 'CANCELED', event: null },
  // its COMPLETED refunds (devoluções DEVOLVIDO) reach its amount, or a MED infraction on it is accepted; the event
  // comes with every completed refund, whether or not it is the one that makes the charge REFUNDED
  refund: { from: ['PAID'], to: 'REFUNDED', event: 'charge.refunded' },
} as const satisfies Record<string, { from: readonly ChargeStatus[]; to: ChargeStatus; event: string | null }>;

const T = CHARGE_TRANSITIONS;
const PAY = sql.PAY(T.pay);
const EXPIRE_ONE = sql.EXPIRE_ONE(T.expire);
const EXPIRE_DUE = sql.EXPIRE_DUE(T.expire);
const REFUND = sql.REFUND(T.refund);
const ADD_REFUND = sql.ADD_REFUND(T.refund);

// What a payment did: paid its charge, was a redelivery of one that did, or paid nothing (and why).
export type PayOutcome = 'paid' | 'duplicate' | 'late' | 'already_paid' | 'unknown' | 'mismatch';

/**
 * pay, in the caller's transaction: each charge PAID, its charge.paid event (with its deliveries) and the ledger split
 * (acquirer -> merchant net + platform fee). Duplicate notifications serialise on the row and find it PAID, so nothing is
 * credited twice. A batch costs the statements of one payment and locks each ledger account once. Notifications for
 * the same charge within a batch are taken in order, one per round, so the first that qualifies pays. Returns each
 * notification's outcome and the merchants credited.
 */
export async function payCharges(
  deps: Pick<Services, 'boss'>,
  tx: EntityManager,
  batch: PaymentNotification[],
): Promise<{ outcomes: PayOutcome[]; credited: string[] }> {
  const outcomes: PayOutcome[] = new Array(batch.length);
  const paid: sql.MerchantChargeRow[] = [];
  let pending = batch.map((n, i) => ({ n, i }));
  while (pending.length) {
    const txids = new Set<string | null>();
    const round = pending.filter(({ n }) => n.txid === null || (!txids.has(n.txid) && txids.add(n.txid)));
    pending = pending.filter((p) => !round.includes(p));
    const ns = round.map(({ n }) => n);
    const rows = await tx.execute<sql.MerchantChargeRow[]>(PAY, [
      pgArray(ns.map((n) => n.txid)),
      pgArray(ns.map((n) => n.endToEndId)),
      pgArray(ns.map((n) => n.amount)),
      pgArray(ns.map((n) => n.paidAt)),
    ]);
    const paidBy = new Map(rows.map((r) => [r.txid, r.end_to_end_id]));
    for (const { n, i } of round) {
      outcomes[i] = n.txid !== null && paidBy.get(n.txid) === n.endToEndId ? 'paid' : await whyNotPaid(tx, n);
    }
    paid.push(...rows);
  }
  const data = (r: sql.MerchantChargeRow) => chargeRowView(r, { tracking: true });
  await recordEvents(
    tx,
    deps.boss,
    paid.map((r) => ({ merchantId: r.merchant_id, type: T.pay.event, data: data(r) })),
  );
  // the ledger last: its account rows stay locked only until the commit that follows
  await postMany(
    tx,
    paid.map((r) => ({
      kind: 'charge.payment',
      referenceId: r.id,
      postings: [
        { account: accounts.acquirerSettlement, amount: -r.amount },
        { account: accounts.available(r.merchant_id), amount: r.amount - r.fee, merchantId: r.merchant_id },
        { account: accounts.platformFees, amount: r.fee },
      ],
    })),
  );
  return { outcomes, credited: paid.map((r) => r.merchant_id) };
}

// Why a payment paid nothing; a payment dated after the expiry of a still-PENDING charge expires it.
async function whyNotPaid(tx: EntityManager, n: PaymentNotification): Promise<PayOutcome> {
  if (n.txid === null) return 'unknown';
  const [c] = await tx.execute<sql.ChargeForPayment[]>(sql.CHARGE_FOR_PAYMENT, [n.txid]);
  if (!c) return 'unknown';
  if (c.end_to_end_id === n.endToEndId) return 'duplicate';
  if (c.status === 'PAID' || c.status === 'REFUNDED') return 'already_paid';
  const paidAt = new Date(n.paidAt).getTime();
  const expired = paidAt > new Date(c.expires_at).getTime();
  if (c.status === 'PENDING' && expired) {
    await tx.execute(EXPIRE_ONE, [n.txid]);
    return 'late';
  }
  const payable =
    !expired && (c.status === 'PENDING' || (c.status === 'CANCELED' && paidAt <= new Date(c.canceled_at!).getTime()));
  if (!payable) return 'late';
  return c.amount !== n.amount ? 'mismatch' : 'unknown';
}

/**
 * expire: PENDING charges past createdAt + expiresIn become CANCELED (the sweep, every minute). With a real acquirer each
 * one's cob is removed there too (a job per charge, committed with the sweep).
 */
export async function expireCharges(deps: Pick<AcquirerDeps, 'boss' | 'acquirer'>, em: EntityManager) {
  return transactional(em, async (tx) => {
    const rows = await tx.execute<{ id: string; txid: string }[]>(EXPIRE_DUE);
    if (rows.length && deps.acquirer.name !== 'sandbox') {
      const jobs = rows.map((r) => ({ data: { txid: r.txid }, singletonKey: r.txid }));
      await enqueueMany(deps.boss, tx, QUEUES.chargeCancel, jobs);
    }
    return rows.length;
  });
}

// refund by an accepted MED infraction, in the caller's transaction: the charge REFUNDED and its charge.refunded event
// (no `refund`: none of its refunds did it); null when it was not PAID.
export async function markRefunded(deps: Pick<Services, 'boss'>, tx: EntityManager, chargeId: string) {
  const [row] = await tx.execute<sql.MerchantChargeRow[]>(REFUND, [chargeId]);
  if (!row) return null;
  const view = chargeRowView(row, { tracking: true });
  await recordEvents(tx, deps.boss, [
    { merchantId: row.merchant_id, type: T.refund.event, data: { ...view, refund: null } },
  ]);
  return view;
}

/**
 * A refund of the charge completed, in the caller's transaction (the charge locked first): its refundedAmount grows by
 * it, the charge becomes REFUNDED (refundedAt) when that reaches its amount, and charge.refunded is recorded either way,
 * its data the charge plus `refund`, the refund that completed (contract).
 */
export async function refundCompleted<R extends { amount: number }>(
  deps: Pick<Services, 'boss'>,
  tx: EntityManager,
  chargeId: string,
  refund: R,
) {
  const [row] = await tx.execute<sql.MerchantChargeRow[]>(ADD_REFUND, [
    refund.amount,
    refund.amount,
    refund.amount,
    chargeId,
  ]);
  const view = chargeRowView(row, { tracking: true });
  await recordEvents(tx, deps.boss, [{ merchantId: row.merchant_id, type: T.refund.event, data: { ...view, refund } }]);
  return view;
}
