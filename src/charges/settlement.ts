import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES } from '../platform/queue.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { recordEvent } from '../events/events.service.ts';
import { chargeRowView, type ChargeRow } from './charge.view.ts';

// Every payment notification, from a real acquirer or the sandbox, enters here and is settled by the worker.
export async function acceptPaymentNotifications(boss: PgBoss, notifications: PaymentNotification[]): Promise<void> {
  for (const n of notifications) await boss.send(QUEUES.acquirerNotification, n, { singletonKey: n.endToEndId });
}

export type SettleOutcome = 'paid' | 'duplicate' | 'late' | 'unknown' | 'mismatch';

type PaidRow = ChargeRow & { merchant_id: string };

/**
 * Settles one payment in one transaction: charge PAID, the charge.paid event and the ledger split (acquirer ->
 * merchant net + platform fee). The conditional UPDATE (only a PENDING charge of that amount, paid before its expiry)
 * is the guard: duplicate notifications serialise on the row and find it PAID, so nothing is credited twice.
 * Written in plain SQL, few round trips: this is the path every payment takes.
 */
export async function settlePayment(em: EntityManager, boss: PgBoss, log: Logger, n: PaymentNotification): Promise<SettleOutcome> {
  const paidAt = new Date(n.paidAt);
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<PaidRow[]>(
      `with paid as (
         update charges set status = 'PAID', paid_at = ?, end_to_end_id = ?, updated_at = now()
          where txid = ? and status = 'PENDING' and amount = ? and expires_at >= ?
         returning *)
       select paid.*, c.name as customer_name, c.document as customer_document from paid left join customers c on c.id = paid.customer_id`,
      [paidAt, n.endToEndId, n.txid, n.amount, paidAt],
    );
    if (!row) return outcome(log, await whyNotPaid(tx, n, paidAt), n);
    await recordEvent(tx, boss, row.merchant_id, 'charge.paid', chargeRowView(row, { tracking: true }));
    // the ledger last: its account rows stay locked only until the commit that follows
    await post(tx, 'charge.payment', row.id, [
      { account: accounts.acquirerSettlement, amount: -row.amount },
      { account: accounts.available(row.merchant_id), amount: row.amount - row.fee, merchantId: row.merchant_id },
      { account: accounts.platformFees, amount: row.fee },
    ]);
    return outcome(log, 'paid', n);
  });
}

// Why a notification paid nothing; a payment dated after the expiry of a still-PENDING charge expires it.
async function whyNotPaid(tx: EntityManager, n: PaymentNotification, paidAt: Date): Promise<SettleOutcome> {
  const [c] = await tx.execute<{ status: string; amount: number; expires_at: Date; end_to_end_id: string | null }[]>(
    'select status, amount, expires_at, end_to_end_id from charges where txid = ? for update', [n.txid],
  );
  if (!c) return 'unknown';
  if (c.status !== 'PENDING') return c.end_to_end_id === n.endToEndId ? 'duplicate' : 'late';
  if (paidAt.getTime() > new Date(c.expires_at).getTime()) {
    await tx.execute(`update charges set status = 'CANCELED', canceled_at = expires_at, updated_at = now() where txid = ? and status = 'PENDING'`, [n.txid]);
    return 'late';
  }
  return c.amount !== n.amount ? 'mismatch' : 'unknown';
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
