// The withdrawals' use cases: create (the debit and the send job in one transaction), read, list.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { NotFoundError } from '../platform/errors.ts';
import { createOnce } from '../platform/idempotency.ts';
import { countedPage } from '../platform/counters.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { isUuid } from '../platform/base.entity.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { guardOwed } from '../infractions/infractions.holds.ts';
import type { PixKeyType } from '../pix/keys.ts';
import { Withdrawal } from './withdrawal.entity.ts';
import { WITHDRAWAL_PAGE, type WithdrawalRow } from './withdrawals.sql.ts';
import { creationView, rowView, withdrawalView } from './withdrawals.view.ts';
import { transactional } from '../platform/transaction.ts';

export type WithdrawalInput = { amount: number; pixKey: string; pixKeyType: PixKeyType; description: string | null };

/**
 * POST /v1/merchants/me/withdrawals, one transaction: the withdrawal row, its send job and the ledger debit
 * (available -> acquirer settlement). The debit refuses to overdraw (guarded UPDATE), so insufficient funds roll
 * everything back with 422. An idempotency key replays the first withdrawal's creation body.
 */
export async function createWithdrawal(
  { boss }: Pick<Services, 'boss'>,
  em: EntityManager,
  merchantId: string,
  input: WithdrawalInput,
  idempotencyKey?: string,
) {
  const { result, replayed } = await createOnce(idempotencyKey, input, {
    find: () => em.fork().findOne(Withdrawal, { merchant: merchantId, idempotencyKey }),
    replay: creationView,
    create: (requestHash) =>
      transactional(em, async (tx) => {
        const w = tx.create(Withdrawal, {
          merchant: merchantId,
          ...input,
          status: 'PROCESSING',
          idempotencyKey,
          requestHash,
        });
        await enqueue(boss, tx, QUEUES.withdrawalSend, { withdrawalId: w.id }); // flushes the row
        // The debit goes last: it locks the ledger rows every payment and withdrawal touch, so hold them the shortest
        // time.
        await post(
          tx,
          'withdrawal',
          w.id,
          [
            { account: accounts.available(merchantId), amount: -input.amount, merchantId },
            { account: accounts.acquirerSettlement, amount: input.amount },
          ],
          { withdrawalId: w.id },
        );
        // what open MED infractions are still owed (not yet blocked) stays out of reach too
        await guardOwed(tx, merchantId);
        return creationView(w);
      }),
  });
  return { withdrawal: result, replayed };
}

// GET /v1/merchants/me/withdrawals/:id (404 for unknown ids and other merchants' ids).
export async function getWithdrawal(em: EntityManager, merchantId: string, id: string) {
  const w = isUuid(id) ? await em.findOne(Withdrawal, { id, merchant: merchantId }) : null;
  if (!w) throw new NotFoundError('Saque não encontrado');
  return withdrawalView(w);
}

// GET /v1/merchants/me/withdrawals: newest first (total from the append-only counter).
export async function listWithdrawals(em: EntityManager, merchantId: string, page: number, limit: number) {
  const { total, rows } = await countedPage<WithdrawalRow>(
    em,
    WITHDRAWAL_PAGE,
    { merchant_id: merchantId },
    page,
    limit,
  );
  return { page, limit, total, withdrawals: rows.map(rowView) };
}
