// Every status change of a withdrawal, from what the acquirer says of its transfer.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps, TransferResult } from '../acquirer/acquirer.ts';
import { recordEvent } from '../webhooks/outbox.ts';
import type { EventType } from '../webhooks/catalog.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { Withdrawal, type IWithdrawal, type WithdrawalStatus } from './withdrawal.entity.ts';
import * as sql from './withdrawals.sql.ts';
import { rowView } from './withdrawals.view.ts';
import { transactional } from '../platform/transaction.ts';
import { ormSql, type Statement, type Transition } from '../platform/sql.ts';

/**
 * Every status change of a withdrawal, driven by what the acquirer says of its transfer (the answer to transferOut, a
 * transfer notification, or reconciliation). Each transition is one guarded UPDATE, committed with its ledger posting
 * and its event, so a duplicate or late outcome changes nothing. Creation (-> PROCESSING, with the debit) is in
 * withdrawals.service.ts.
 */
export const WITHDRAWAL_TRANSITIONS = {
  // the acquirer accepted the transfer: keep its batch id and wait (no status change, no event)
  accept: { from: ['PROCESSING'], to: 'PROCESSING', event: null },
  complete: { from: ['PROCESSING'], to: 'COMPLETED', event: 'withdraw.completed' },
  // rejected: the balance is reverted (withdrawal.reversal)
  fail: { from: ['PROCESSING'], to: 'FAILED', event: 'withdraw.failed' },
  // completed, then returned by the receiving bank: credited back (withdrawal.return), returnedAt set; the transfer did
  // happen, so the status stays COMPLETED
  return: { from: ['COMPLETED'], to: 'COMPLETED', event: 'withdraw.refunded' },
} as const satisfies Record<string, Transition<WithdrawalStatus, EventType>>;

const T = WITHDRAWAL_TRANSITIONS;
const ACCEPT = sql.ACCEPT(T.accept);
const COMPLETE = sql.COMPLETE(T.complete);
const FAIL = sql.FAIL(T.fail);
const RETURN = sql.RETURN(T.return);

type StateDeps = Pick<AcquirerDeps, 'orm' | 'boss' | 'acquirer' | 'logger'>;

async function transition(em: EntityManager, s: Statement, params: unknown[]): Promise<sql.WithdrawalRow | null> {
  const [row] = await ormSql(em).query<sql.WithdrawalRow>(s, params);
  return row ?? null;
}

// The event's data is the withdrawal as the API shows it, after the change.
const emit = (em: EntityManager, deps: StateDeps, w: sql.WithdrawalRow, type: EventType) =>
  recordEvent(em, deps.boss, w.merchant_id, type, rowView(w));

// Money back to the merchant (a failed or returned transfer): the mirror of the withdrawal's debit, posted once.
const creditBack = (em: EntityManager, w: sql.WithdrawalRow, kind: 'withdrawal.reversal' | 'withdrawal.return') =>
  post(
    em,
    kind,
    w.id,
    [
      { account: accounts.available(w.merchant_id), amount: w.amount, merchantId: w.merchant_id },
      { account: accounts.acquirerSettlement, amount: -w.amount },
    ],
    { withdrawalId: w.id },
  );

async function complete(em: EntityManager, deps: StateDeps, id: string, batchId: string | null) {
  const w = await transition(em, COMPLETE, [id, batchId]);
  if (w) await emit(em, deps, w, T.complete.event);
}

// Records what the acquirer says about a transfer, in one transaction.
export async function applyTransferOutcome(
  deps: StateDeps,
  withdrawalId: string,
  result: TransferResult,
): Promise<void> {
  await transactional(deps.orm.em.fork(), async (em) => {
    switch (result.status) {
      case 'PROCESSING':
        if (result.batchId) await transition(em, ACCEPT, [withdrawalId, result.batchId]);
        return;
      case 'COMPLETED':
        return complete(em, deps, withdrawalId, result.batchId);
      case 'FAILED': {
        const reason = (result.failureReason ?? 'Transferência recusada pelo adquirente').slice(0, 255);
        const w = await transition(em, FAIL, [withdrawalId, result.batchId, reason]);
        if (!w) return;
        await emit(em, deps, w, T.fail.event);
        await creditBack(em, w, 'withdrawal.reversal');
        return;
      }
      case 'RETURNED': {
        await complete(em, deps, withdrawalId, result.batchId); // a return implies it had completed
        const w = await transition(em, RETURN, [withdrawalId]);
        if (!w) return;
        await emit(em, deps, w, T.return.event);
        await creditBack(em, w, 'withdrawal.return');
      }
    }
  });
}

// Hands the withdrawal to the acquirer (idempotency key = withdrawal id, so a repeat never sends twice) and records the
// answer.
async function transfer(deps: StateDeps, w: IWithdrawal): Promise<void> {
  const result = await deps.acquirer.transferOut({
    idempotencyKey: w.id,
    amount: w.amount,
    pixKey: w.pixKey,
    pixKeyType: w.pixKeyType,
    description: w.description ?? null,
  });
  await applyTransferOutcome(deps, w.id, result);
}

// The withdrawal.send job. Safe to run twice: a settled or already accepted withdrawal is left alone.
export async function sendWithdrawal(deps: StateDeps, withdrawalId: string): Promise<void> {
  const w = await deps.orm.em.fork().findOne(Withdrawal, withdrawalId);
  if (!w) return void deps.logger.warn({ withdrawalId }, 'withdrawal to send not found');
  if (w.status !== 'PROCESSING' || w.batchId) return;
  await transfer(deps, w);
}

/**
 * Crash recovery: every withdrawal PROCESSING with no change for `olderThanSeconds` is checked with the acquirer.
 * Unknown there -> sent now (idempotent); known -> its state is applied. One failing withdrawal does not stop the rest.
 */
export async function reconcileWithdrawals(deps: StateDeps, { olderThanSeconds }: { olderThanSeconds: number }) {
  const summary = { checked: 0, resent: 0, applied: 0, errors: 0 };
  const em = deps.orm.em.fork();
  const cutoff = new Date(Date.now() - olderThanSeconds * 1000);
  // Paged by id (unique, exact): a timestamp cursor would lose microseconds in JS and could fetch a page forever.
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await em.find(
      Withdrawal,
      { status: 'PROCESSING', updatedAt: { $lt: cutoff }, id: { $gt: after } },
      { orderBy: { id: 'asc' }, limit: 100 },
    );
    for (const w of batch) {
      summary.checked++;
      try {
        const seen = await deps.acquirer.getTransfer(w.id);
        if (seen) await applyTransferOutcome(deps, w.id, seen);
        else await transfer(deps, w);
        summary[seen ? 'applied' : 'resent']++;
      } catch (err) {
        summary.errors++;
        deps.logger.error({ err, withdrawalId: w.id }, 'withdrawal reconciliation failed');
      }
    }
    if (batch.length < 100) return summary;
    after = batch[batch.length - 1].id;
    em.clear();
  }
}
