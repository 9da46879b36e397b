// The API's view of a withdrawal: one mapping for the entity and for raw rows.
import type { IWithdrawal } from './withdrawal.entity.ts';
import type { Instant, WithdrawalRow } from './withdrawals.sql.ts';

const iso = (d: Instant) => (d ? new Date(d).toISOString() : null);
type Fields = Pick<IWithdrawal, 'id' | 'amount' | 'status' | 'pixKey' | 'pixKeyType'> & {
  description?: string | null;
  batchId?: string | null;
  failureReason?: string | null;
  createdAt: Instant;
  updatedAt: Instant;
  completedAt?: Instant;
  failedAt?: Instant;
  returnedAt?: Instant;
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

export type WithdrawalView = ReturnType<typeof view>;

export const withdrawalView = (w: IWithdrawal): WithdrawalView => view(w);

export const rowView = (r: WithdrawalRow): WithdrawalView =>
  view({
    id: r.id,
    amount: r.amount,
    description: r.description,
    status: r.status,
    batchId: r.batch_id,
    pixKey: r.pix_key,
    pixKeyType: r.pix_key_type,
    failureReason: r.failure_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
    failedAt: r.failed_at,
    returnedAt: r.returned_at,
  });

// The creation response is a function of the immutable columns (a new withdrawal is always PROCESSING, unsent),
// so an idempotent replay can return exactly the original body without storing it.
export function creationView(w: IWithdrawal): WithdrawalView {
  return {
    ...withdrawalView(w),
    status: 'PROCESSING',
    batchId: null,
    updatedAt: w.createdAt.toISOString(),
    completedAt: null,
    failedAt: null,
    returnedAt: null,
    failureReason: null,
  };
}
