import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { QUEUES } from '../platform/queue.ts';
import { accounts, postMany } from '../ledger/ledger.service.ts';
import { recordEvents } from '../events/events.service.ts';
import { pgArray } from '../platform/sql.ts';
import { chargeRowView, type ChargeRow } from './charge.view.ts';

// Every payment notification, from a real acquirer or the sandbox, enters here and is settled by the worker.
export async function acceptPaymentNotifications(boss: PgBoss, notifications: PaymentNotification[]): Promise<void> {
  for (const n of notifications) await boss.send(QUEUES.acquirerNotification, n, { singletonKey: n.endToEndId });
}

export type SettleOutcome = 'paid' | 'duplicate' | 'late' | 'unknown' | 'mismatch';

type PaidRow = ChargeRow & { merchant_id: string };

/**
 * Settles payments in one transaction: each charge PAID, its charge.paid event (with its deliveries) and the ledger
 * split (acquirer -> merchant net + platform fee). The conditional UPDATE (only a PENDING charge of that amount, paid
 * before its expiry) is the guard: duplicate notifications serialise on the row and find it PAID, so nothing is
 * credited twice. A batch costs the statements of one payment, and locks each ledger account once: under load the
 * worker settles whatever is queued together, instead of every payment queueing on the same hot account rows.
 * Notifications for the same charge within a batch are taken in order, one per round (rounds are rare: a redelivery
 * arriving with its original), so the first that qualifies pays, as if they had come one at a time.
 * Written in plain SQL, few round trips: this is the path every payment takes.
 */
export async function settlePayments(em: EntityManager, boss: PgBoss, log: Logger, batch: PaymentNotification[]): Promise<SettleOutcome[]> {
  return em.transactional(async (tx) => {
    const outcomes: SettleOutcome[] = new Array(batch.length);
    const paid: PaidRow[] = [];
    let pending = batch.map((n, i) => ({ n, i }));
    while (pending.length) {
      const txids = new Set<string>();
      const round = pending.filter(({ n }) => !txids.has(n.txid) && txids.add(n.txid));
      pending = pending.filter((p) => !round.includes(p));
      const rows = await payCharges(tx, round.map(({ n }) => n));
      const paidBy = new Map(rows.map((r) => [r.txid, r.end_to_end_id]));
      for (const { n, i } of round) {
        outcomes[i] = outcome(log, paidBy.get(n.txid) === n.endToEndId ? 'paid' : await whyNotPaid(tx, n, new Date(n.paidAt)), n);
      }
      paid.push(...rows);
    }
    await recordEvents(tx, boss, paid.map((r) => ({ merchantId: r.merchant_id, type: 'charge.paid', data: chargeRowView(r, { tracking: true }) })));
    // the ledger last: its account rows stay locked only until the commit that follows
    await postMany(tx, paid.map((r) => ({
      kind: 'charge.payment',
      referenceId: r.id,
      postings: [
        { account: accounts.acquirerSettlement, amount: -r.amount },
        { account: accounts.available(r.merchant_id), amount: r.amount - r.fee, merchantId: r.merchant_id },
        { account: accounts.platformFees, amount: r.fee },
      ],
    })));
    return outcomes;
  });
}

// One UPDATE for notifications of distinct charges. The charges are locked first, in txid order (the UPDATE reaches a
// row only through `locked`), so two batches sharing charges never wait on each other crosswise.
function payCharges(tx: EntityManager, notifications: PaymentNotification[]): Promise<PaidRow[]> {
  return tx.execute<PaidRow[]>(
    `with n as (select * from unnest(?::text[], ?::text[], ?::int[], ?::timestamptz[]) as n(txid, end_to_end_id, amount, paid_at)),
     locked as materialized (select c.id from charges c where c.txid in (select txid from n) order by c.txid for update of c),
     paid as (
       update charges c set status = 'PAID', paid_at = n.paid_at, end_to_end_id = n.end_to_end_id, updated_at = now()
         from n join locked on true
        where locked.id = c.id and c.txid = n.txid and c.status = 'PENDING' and c.amount = n.amount and c.expires_at >= n.paid_at
       returning c.*)
     select paid.*, cu.name as customer_name, cu.document as customer_document from paid left join customers cu on cu.id = paid.customer_id`,
    [pgArray(notifications.map((n) => n.txid)), pgArray(notifications.map((n) => n.endToEndId)),
      pgArray(notifications.map((n) => n.amount)), pgArray(notifications.map((n) => n.paidAt))],
  );
}

export async function settlePayment(em: EntityManager, boss: PgBoss, log: Logger, n: PaymentNotification): Promise<SettleOutcome> {
  return (await settlePayments(em, boss, log, [n]))[0];
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
// Charges a settlement holds locked are skipped (SKIP LOCKED): the sweep never waits on, nor deadlocks with, a batch of
// payments, and what it skips is decided by that settlement or by the next sweep.
export async function expireCharges(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `update charges set status = 'CANCELED', canceled_at = expires_at, updated_at = now()
      where id in (select id from charges where status = 'PENDING' and expires_at <= now() for update skip locked)
        and status = 'PENDING'
      returning id`,
  );
  return rows.length;
}
