import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import { IDEMPOTENCY_CONFLICT, requestHash as hashOf } from '../platform/idempotency.ts';
import { QUEUES, sendInTx } from '../platform/queue.ts';
import { isUuid } from '../platform/base.entity.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import type { PixKeyType } from '../pix-keys/pix-key.entity.ts';
import { Withdrawal, type IWithdrawal } from './withdrawal.entity.ts';

export type WithdrawalInput = { amount: number; pixKey: string; pixKeyType: PixKeyType; description: string | null };
export type SendJob = { withdrawalId: string };

type Instant = Date | string | null | undefined; // raw SQL returns timestamps as text
const iso = (d: Instant) => (d ? new Date(d).toISOString() : null);
type Fields = Pick<IWithdrawal, 'id' | 'amount' | 'status' | 'pixKey' | 'pixKeyType'> & {
  description?: string | null; batchId?: string | null; failureReason?: string | null;
  createdAt: Instant; updatedAt: Instant; completedAt?: Instant; failedAt?: Instant; returnedAt?: Instant;
};

// The API's withdrawal (spec 2.4 first, then the timestamps and reason a merchant needs to follow it).
function view(w: Fields) {
  return {
    id: w.id,
    amount: w.amount,
    description: w.description ?? null,
    status: w.status,
    batchId: w.batchId ?? null,
    pixKey: w.pixKey,
    pixKeyType: w.pixKeyType,
    createdAt: iso(w.createdAt)!,
    updatedAt: iso(w.updatedAt)!,
    completedAt: iso(w.completedAt),
    failedAt: iso(w.failedAt),
    returnedAt: iso(w.returnedAt),
    failureReason: w.failureReason ?? null,
  };
}

export const withdrawalView = (w: IWithdrawal) => view(w);

// A withdrawals row as raw SQL returns it. Hot paths map rows straight to the view: ORM hydration costs more than the query.
export type WithdrawalRow = {
  id: string; merchant_id: string; amount: number; description: string | null; status: IWithdrawal['status'];
  batch_id: string | null; pix_key: string; pix_key_type: IWithdrawal['pixKeyType']; failure_reason: string | null;
  created_at: Instant; updated_at: Instant; completed_at: Instant; failed_at: Instant; returned_at: Instant;
};
export const rowView = (r: WithdrawalRow) => view({
  id: r.id, amount: r.amount, description: r.description, status: r.status, batchId: r.batch_id, pixKey: r.pix_key,
  pixKeyType: r.pix_key_type, failureReason: r.failure_reason, createdAt: r.created_at, updatedAt: r.updated_at,
  completedAt: r.completed_at, failedAt: r.failed_at, returnedAt: r.returned_at,
});

export type WithdrawalView = ReturnType<typeof withdrawalView>;

// The creation response is a function of the immutable columns (a new withdrawal is always PROCESSING, unsent),
// so an idempotent replay can return exactly the original body without storing it.
export function creationView(w: IWithdrawal): WithdrawalView {
  return { ...withdrawalView(w), status: 'PROCESSING', batchId: null, updatedAt: w.createdAt.toISOString(),
    completedAt: null, failedAt: null, returnedAt: null, failureReason: null };
}

function replayOf(prior: IWithdrawal, requestHash: string) {
  if (prior.requestHash !== requestHash) throw new ConflictError(IDEMPOTENCY_CONFLICT);
  return { withdrawal: prior, replayed: true };
}

/**
 * One transaction: the withdrawal row, its send job and the ledger debit (available -> acquirer settlement).
 * The debit refuses to overdraw (guarded UPDATE), so insufficient funds roll everything back with 422.
 * With an idempotency key, a repeat returns the first withdrawal; concurrent repeats meet at the unique key.
 */
export async function createWithdrawal(em: EntityManager, boss: PgBoss, merchantId: string, input: WithdrawalInput,
  idempotencyKey?: string): Promise<{ withdrawal: IWithdrawal; replayed: boolean }> {
  const requestHash = idempotencyKey ? hashOf(input) : null;
  const findPrior = () => em.fork().findOne(Withdrawal, { merchant: merchantId, idempotencyKey });
  if (idempotencyKey) {
    const prior = await findPrior();
    if (prior) return replayOf(prior, requestHash!);
  }
  try {
    const withdrawal = await em.transactional(async (tx) => {
      const w = tx.create(Withdrawal, { merchant: merchantId, ...input, status: 'PROCESSING', idempotencyKey, requestHash });
      await sendInTx(tx, boss, QUEUES.withdrawalSend, { withdrawalId: w.id } satisfies SendJob); // flushes the row first
      // The debit goes last: it locks the ledger rows every payment and withdrawal touch, so hold them the shortest time.
      await post(tx, 'withdrawal', w.id, [
        { account: accounts.available(merchantId), amount: -input.amount, merchantId },
        { account: accounts.acquirerSettlement, amount: input.amount },
      ]);
      return w;
    });
    return { withdrawal, replayed: false };
  } catch (err) {
    // another request with the same key committed first: answer as its replay
    if (idempotencyKey && err instanceof UniqueConstraintViolationException) {
      const prior = await findPrior();
      if (prior) return replayOf(prior, requestHash!);
    }
    throw err;
  }
}

export async function getWithdrawal(em: EntityManager, merchantId: string, id: string): Promise<IWithdrawal> {
  const w = isUuid(id) ? await em.findOne(Withdrawal, { id, merchant: merchantId }) : null;
  if (!w) throw new NotFoundError('Saque não encontrado');
  return w;
}

/**
 * Newest first, in one round trip. `total` comes from the trigger-maintained counter (a few rows), never count(*).
 * The page's ids are found on the (merchant_id, created_at desc, id desc) index alone (an index-only scan: a deep
 * OFFSET skips index entries, not table rows), then only the page's rows are read by primary key. The total gates
 * the scan (a one-time filter), so a page past the end reads nothing. Counter and rows share the statement's snapshot.
 */
export async function listWithdrawals(em: EntityManager, merchantId: string, page: number, limit: number) {
  const offset = (page - 1) * limit;
  const rows = await em.execute<(Partial<WithdrawalRow> & { total: string })[]>(
    `select c.total, w.* from (select coalesce(sum(count), 0) as total from withdrawal_counts where merchant_id = ?) c
       left join lateral (select id from withdrawals where merchant_id = ? and c.total > ?
                           order by created_at desc, id desc limit ? offset ?) p on true
       left join withdrawals w on w.id = p.id
      order by w.created_at desc, w.id desc`,
    [merchantId, merchantId, offset, limit, offset]);
  const withdrawals = rows[0].id ? (rows as WithdrawalRow[]).map(rowView) : []; // an empty page is one row with only the total
  return { page, limit, total: Number(rows[0].total), withdrawals };
}
