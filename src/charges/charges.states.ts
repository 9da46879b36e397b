// Every status change of a charge (paid, expired, canceled, refunded), each one guarded UPDATE.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { enqueueMany, QUEUES } from '../platform/queue.ts';
import { recordEvents } from '../webhooks/outbox.ts';
import type { ChargeStatus } from './charge.entity.ts';
import type { MerchantChargeRow } from './charge-row.ts';
import * as sql from './charges.sql.ts';
import { ormSql, type Transition } from '../platform/sql.ts';
import { chargeRowView } from './charges.view.ts';
import { transactional } from '../platform/transaction.ts';
import { recurringChargeView, type RecurringChargeRow } from './recurring.view.ts';

/**
 * Every status change of a charge. Each transition is one guarded UPDATE (`where status in (from)`), so it happens once
 * whatever the concurrency, and commits with its event and its ledger posting in the caller's transaction. Creation
 * (-> PENDING) is in charges.create.ts; the payments and refunds that drive these are in src/payments/settle.ts (pay:
 * its statement, PAY, in settle.sql.ts, built from this table's row) and src/refunds/refunds.states.ts.
 */
export const CHARGE_TRANSITIONS = {
  // a confirmed payment of the amount (due date: the amount due on the payment's day), dated within the validity;
  // CANCELED only when the expiry came after the payment
  pay: { from: ['PENDING', 'CANCELED'], to: 'PAID', event: 'charge.paid' },
  // past createdAt + expiresIn (contract: no event)
  expire: { from: ['PENDING'], to: 'CANCELED', event: null },
  // its COMPLETED refunds (devoluções DEVOLVIDO) reach its amount, or a MED infraction on it is accepted; the event
  // comes with every completed refund, whether or not it is the one that makes the charge REFUNDED
  refund: { from: ['PAID'], to: 'REFUNDED', event: 'charge.refunded' },
} as const satisfies Record<string, Transition<ChargeStatus>>;

const T = CHARGE_TRANSITIONS;
const EXPIRE_ONE = sql.EXPIRE_ONE(T.expire);
const EXPIRE_DUE = sql.EXPIRE_DUE(T.expire);
const REFUND = sql.REFUND(T.refund);
const ADD_REFUND = sql.ADD_REFUND(T.refund);

// expire, one charge, in the settlement's transaction (src/payments/settle.ts): a payment dated after the expiry of
// this still-PENDING charge arrived before the sweep.
export async function expireOne(tx: EntityManager, txid: string): Promise<void> {
  await ormSql(tx).run(EXPIRE_ONE, [txid]);
}

/**
 * expire: PENDING charges past createdAt + expiresIn (a due date: past the last valid day) become CANCELED (the sweep,
 * every minute). With a real acquirer each one's cob (or cobv) is removed there too (a job per charge, committed with
 * the sweep).
 */
export async function expireCharges(deps: Pick<AcquirerDeps, 'boss' | 'acquirer'>, em: EntityManager) {
  return transactional(em, async (tx) => {
    const rows = await ormSql(tx).query<{ id: string; txid: string; type: string }>(EXPIRE_DUE);
    if (rows.length && deps.acquirer.name !== 'sandbox') {
      const jobs = rows.map((r) => ({
        data: { txid: r.txid, ...(r.type === 'DUE_DATE' ? { due: true } : {}) },
        singletonKey: r.txid,
      }));
      await enqueueMany(deps.boss, tx, QUEUES.chargeCancel, jobs);
    }
    return rows.length;
  });
}

// refund by an accepted MED infraction, in the caller's transaction: the charge REFUNDED and its charge.refunded event
// (no `refund`: none of its refunds did it); null when it was not PAID.
export async function markRefunded(deps: Pick<Services, 'boss' | 'config'>, tx: EntityManager, chargeId: string) {
  const [row] = await ormSql(tx).query<MerchantChargeRow>(REFUND, [chargeId]);
  if (!row) return null;
  const view = chargeRowView(row, { publicBaseUrl: deps.config.publicBaseUrl, tracking: true });
  await recordEvents(tx, deps.boss, [await refundEvent(tx, row, view, null)]);
  return view;
}

const RECURRING_REFUNDED = 'recurring_charge.refunded' as const;

// The event of a completed refund (or MED): charge.refunded, or for a RECURRING row recurring_charge.refunded with
// the recurring charge (its refundedAmount the row's), both with `refund`.
async function refundEvent<R>(tx: EntityManager, row: MerchantChargeRow, view: object, refund: R) {
  if (row.type !== 'RECURRING') return { merchantId: row.merchant_id, type: T.refund.event, data: { ...view, refund } };
  const [rc] = await ormSql(tx).query<RecurringChargeRow>(sql.RECURRING_OF_CHARGE, [row.id]);
  return {
    merchantId: row.merchant_id,
    type: RECURRING_REFUNDED,
    data: { ...recurringChargeView(rc), refund },
  };
}

/**
 * A refund of the charge completed, in the caller's transaction (the charge locked first): its refundedAmount grows by
 * it, the charge becomes REFUNDED (refundedAt) when that reaches its amount, and charge.refunded is recorded either way,
 * its data the charge plus `refund`, the refund that completed (contract).
 */
export async function refundCompleted<R extends { amount: number }>(
  deps: Pick<Services, 'boss' | 'config'>,
  tx: EntityManager,
  chargeId: string,
  refund: R,
) {
  const [row] = await ormSql(tx).query<MerchantChargeRow>(ADD_REFUND, [
    refund.amount,
    refund.amount,
    refund.amount,
    chargeId,
  ]);
  const view = chargeRowView(row, { publicBaseUrl: deps.config.publicBaseUrl, tracking: true });
  await recordEvents(tx, deps.boss, [await refundEvent(tx, row, view, refund)]);
  return view;
}
