import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../deps.ts';
import type { TransferResult } from '../acquirer/acquirer.ts';
import { recordEvent } from '../events/events.service.ts';
import type { EventType } from '../events/catalog.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { Withdrawal, type IWithdrawal } from './withdrawal.entity.ts';
import { rowView, type WithdrawalRow } from './withdrawals.service.ts';

type OutcomeDeps = Pick<Deps, 'orm' | 'boss' | 'acquirer' | 'logger'>;

// Runs one guarded UPDATE; a row comes back only when this call made the transition (so it happens once).
async function transition(em: EntityManager, sql: string, params: unknown[]): Promise<WithdrawalRow | null> {
  const [row] = await em.execute<WithdrawalRow[]>(`${sql} returning *`, params);
  return row ?? null;
}

// The event's data is the withdrawal as the API shows it, after the change.
const emit = (em: EntityManager, deps: OutcomeDeps, w: WithdrawalRow, type: EventType) =>
  recordEvent(em, deps.boss, w.merchant_id, type, rowView(w));

// Money back to the merchant (a failed or returned transfer): the mirror of the withdrawal's debit, posted once.
const creditBack = (em: EntityManager, w: WithdrawalRow, kind: 'withdrawal.reversal' | 'withdrawal.return') =>
  post(em, kind, w.id, [
    { account: accounts.available(w.merchant_id), amount: w.amount, merchantId: w.merchant_id },
    { account: accounts.acquirerSettlement, amount: -w.amount },
  ]);

async function complete(em: EntityManager, deps: OutcomeDeps, id: string, batchId: string | null) {
  const w = await transition(em, `update withdrawals set status = 'COMPLETED', completed_at = now(), updated_at = now(),
    batch_id = coalesce(?, batch_id) where id = ? and status = 'PROCESSING'`, [batchId, id]);
  if (w) await emit(em, deps, w, 'withdraw.completed');
}

/**
 * Records what the acquirer says about a transfer (the answer to transferOut, a transfer notification, or
 * reconciliation). Every transition is conditional, with its ledger posting and event in the same transaction,
 * so a duplicate or late outcome changes nothing:
 * - PROCESSING: the acquirer accepted it; keep its batch id and wait.
 * - COMPLETED: COMPLETED once, `withdraw.completed`.
 * - FAILED: only from PROCESSING: FAILED, balance reverted (`withdrawal.reversal`), `withdraw.failed`.
 * - RETURNED: completed, then returned by the receiving bank: balance credited back (`withdrawal.return`),
 *   returnedAt set, `withdraw.refunded`. The status stays COMPLETED: the transfer did happen.
 */
export async function applyTransferOutcome(deps: OutcomeDeps, withdrawalId: string, result: TransferResult): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    switch (result.status) {
      case 'PROCESSING':
        if (result.batchId) {
          await em.execute(`update withdrawals set batch_id = ?, updated_at = now()
            where id = ? and status = 'PROCESSING' and batch_id is null`, [result.batchId, withdrawalId]);
        }
        return;
      case 'COMPLETED':
        return complete(em, deps, withdrawalId, result.batchId);
      case 'FAILED': {
        const w = await transition(em, `update withdrawals set status = 'FAILED', failed_at = now(), updated_at = now(),
          failure_reason = ?, batch_id = coalesce(?, batch_id) where id = ? and status = 'PROCESSING'`,
        [(result.failureReason ?? 'Transferência recusada pelo adquirente').slice(0, 255), result.batchId, withdrawalId]);
        if (!w) return;
        await emit(em, deps, w, 'withdraw.failed');
        await creditBack(em, w, 'withdrawal.reversal');
        return;
      }
      case 'RETURNED': {
        await complete(em, deps, withdrawalId, result.batchId); // a return implies it had completed
        const w = await transition(em, `update withdrawals set returned_at = now(), updated_at = now()
          where id = ? and status = 'COMPLETED' and returned_at is null`, [withdrawalId]);
        if (!w) return;
        await emit(em, deps, w, 'withdraw.refunded');
        await creditBack(em, w, 'withdrawal.return');
      }
    }
  });
}

// Hands the withdrawal to the acquirer (idempotency key = withdrawal id, so a repeat never sends twice) and records the answer.
async function transfer(deps: OutcomeDeps, w: IWithdrawal): Promise<void> {
  const result = await deps.acquirer.transferOut({
    idempotencyKey: w.id, amount: w.amount, pixKey: w.pixKey, pixKeyType: w.pixKeyType, description: w.description ?? null,
  });
  await applyTransferOutcome(deps, w.id, result);
}

// The withdrawal.send job. Safe to run twice: a settled or already accepted withdrawal is left alone.
export async function sendWithdrawal(deps: OutcomeDeps, withdrawalId: string): Promise<void> {
  const w = await deps.orm.em.fork().findOne(Withdrawal, withdrawalId);
  if (!w) return void deps.logger.warn({ withdrawalId }, 'withdrawal to send not found');
  if (w.status !== 'PROCESSING' || w.batchId) return;
  await transfer(deps, w);
}

/**
 * Crash recovery: every withdrawal PROCESSING with no change for `olderThanSeconds` is checked with the acquirer.
 * Unknown there -> sent now (idempotent); known -> its state is applied. One failing withdrawal does not stop the rest.
 */
export async function reconcileWithdrawals(deps: OutcomeDeps, { olderThanSeconds }: { olderThanSeconds: number }) {
  const summary = { checked: 0, resent: 0, applied: 0, errors: 0 };
  const em = deps.orm.em.fork();
  const cutoff = new Date(Date.now() - olderThanSeconds * 1000);
  // Paged by id (unique, exact): a timestamp cursor would lose microseconds in JS and could fetch a page forever.
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await em.find(Withdrawal, { status: 'PROCESSING', updatedAt: { $lt: cutoff }, id: { $gt: after } },
      { orderBy: { id: 'asc' }, limit: 100 });
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
