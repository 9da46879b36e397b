import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES } from '../platform/queue.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { recordEvent } from '../events/events.service.ts';
import { Charge } from './charge.entity.ts';
import { chargeView } from './charge.view.ts';

// Every payment notification, from a real acquirer or the sandbox, enters here and is settled by the worker.
export async function acceptPaymentNotifications(boss: PgBoss, notifications: PaymentNotification[]): Promise<void> {
  for (const n of notifications) await boss.send(QUEUES.acquirerNotification, n, { singletonKey: n.endToEndId });
}

export type SettleOutcome = 'paid' | 'duplicate' | 'late' | 'unknown' | 'mismatch';

/**
 * Settles one payment in one transaction: charge PAID, the ledger split (acquirer -> merchant net + platform fee)
 * and the charge.paid event. The row lock serialises duplicate notifications; anything but a PENDING charge
 * (already PAID, CANCELED by expiry, REFUNDED) changes nothing, so no payment is ever credited twice.
 */
export async function settlePayment(em: EntityManager, boss: PgBoss, log: Logger, n: PaymentNotification): Promise<SettleOutcome> {
  return em.transactional(async (tx) => {
    const charge = await tx.findOne(Charge, { txid: n.txid }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['customer'] });
    if (!charge) return outcome(log, 'unknown', n);
    if (charge.status !== 'PENDING') return outcome(log, charge.endToEndId === n.endToEndId ? 'duplicate' : 'late', n);
    const paidAt = new Date(n.paidAt);
    // paid after its expiry (the sweeper may not have run yet): the charge is over, so it expires instead
    if (paidAt.getTime() > charge.expiresAt.getTime()) {
      charge.status = 'CANCELED';
      charge.canceledAt = charge.expiresAt;
      return outcome(log, 'late', n);
    }
    if (n.amount !== charge.amount) return outcome(log, 'mismatch', n);
    charge.status = 'PAID';
    charge.paidAt = paidAt;
    charge.endToEndId = n.endToEndId;
    const merchantId = charge.merchant.id;
    await post(tx, 'charge.payment', charge.id, [
      { account: accounts.acquirerSettlement, amount: -charge.amount },
      { account: accounts.available(merchantId), amount: charge.amount - charge.fee, merchantId },
      { account: accounts.platformFees, amount: charge.fee },
    ]);
    await recordEvent(tx, boss, merchantId, 'charge.paid', chargeView(charge, charge.customer ?? null, { tracking: true }));
    return outcome(log, 'paid', n);
  });
}

function outcome(log: Logger, result: SettleOutcome, n: PaymentNotification): SettleOutcome {
  if (result === 'paid') log.info({ txid: n.txid, endToEndId: n.endToEndId }, 'charge paid');
  else log.warn({ txid: n.txid, endToEndId: n.endToEndId, result }, 'payment notification changed nothing');
  return result;
}

// PENDING charges past createdAt + expiresIn become CANCELED (no event, per the contract).
export async function expireCharges(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `update charges set status = 'CANCELED', canceled_at = expires_at, updated_at = now()
      where status = 'PENDING' and expires_at <= now() returning id`,
  );
  return rows.length;
}
