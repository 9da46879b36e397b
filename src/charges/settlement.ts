import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES } from '../platform/queue.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { recordEvent } from '../events/events.service.ts';
import type { ChargeStatus } from './charge.entity.ts';
import { chargeView, type ChargeFields } from './charge.view.ts';

// Every payment notification, from a real acquirer or the sandbox, enters here and is settled by the worker.
export async function acceptPaymentNotifications(boss: PgBoss, notifications: PaymentNotification[]): Promise<void> {
  for (const n of notifications) await boss.send(QUEUES.acquirerNotification, n, { singletonKey: n.endToEndId });
}

export type SettleOutcome = 'paid' | 'duplicate' | 'late' | 'unknown' | 'mismatch';

type PaidRow = {
  id: string; merchant_id: string; txid: string; qr_code: string; amount: number; fee: number; status: ChargeStatus; description: string;
  expires_in: number; created_at: string; expires_at: string; tracking: Record<string, string> | null; end_to_end_id: string | null;
  paid_at: string | null; canceled_at: string | null; refunded_at: string | null; customer_id: string | null; customer_name: string | null; customer_document: string | null;
};

// raw rows carry timestamps as strings
const date = (v: Date | string | null) => (v === null ? null : new Date(v));
const chargeFields = (r: PaidRow): ChargeFields => ({
  id: r.id, txid: r.txid, qrCode: r.qr_code, amount: r.amount, fee: r.fee, status: r.status, description: r.description,
  expiresIn: r.expires_in, createdAt: date(r.created_at)!, expiresAt: date(r.expires_at)!, tracking: r.tracking, endToEndId: r.end_to_end_id,
  paidAt: date(r.paid_at), canceledAt: date(r.canceled_at), refundedAt: date(r.refunded_at),
});

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
    const customer = row.customer_id ? { id: row.customer_id, name: row.customer_name!, document: row.customer_document! } : null;
    await recordEvent(tx, boss, row.merchant_id, 'charge.paid', chargeView(chargeFields(row), customer, { tracking: true }));
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
