// Every statement on the withdrawals table (run through MikroORM: `?` parameters), with its rows and their API view.
import type { PageSpec } from '../platform/counters.ts';
import type { IWithdrawal, WithdrawalStatus } from './withdrawal.entity.ts';

// The guards take the statuses a transition may start from (`from`, the table of withdrawals.states.ts).
type From = readonly WithdrawalStatus[];
const statuses = (from: From) => from.map((s) => `'${s}'`).join(', ');

// Each transition returns the row after the change (only when this call made it, so it happens once).
export const ACCEPT = (from: From) => `update withdrawals set batch_id = ?, updated_at = now()
  where id = ? and status in (${statuses(from)}) and batch_id is null returning *`;
export const COMPLETE = (
  from: From,
) => `update withdrawals set status = 'COMPLETED', completed_at = now(), updated_at = now(),
  batch_id = coalesce(?, batch_id) where id = ? and status in (${statuses(from)}) returning *`;
export const FAIL = (from: From) => `update withdrawals set status = 'FAILED', failed_at = now(), updated_at = now(),
  failure_reason = ?, batch_id = coalesce(?, batch_id) where id = ? and status in (${statuses(from)}) returning *`;
export const RETURN = (from: From) => `update withdrawals set returned_at = now(), updated_at = now()
  where id = ? and status in (${statuses(from)}) and returned_at is null returning *`;

// The withdrawals listing (countedPage).
export const WITHDRAWAL_PAGE: PageSpec = {
  table: 'withdrawals',
  alias: 'w',
  counter: { table: 'withdrawal_counts', keys: 'merchant_id' },
  columns: 'w.*',
};

type Instant = Date | string | null | undefined; // raw SQL returns timestamps as text

// A withdrawals row as raw SQL returns it. Hot paths map rows straight to the view: ORM hydration costs more than the
// query.
export type WithdrawalRow = {
  id: string;
  merchant_id: string;
  amount: number;
  description: string | null;
  status: WithdrawalStatus;
  batch_id: string | null;
  pix_key: string;
  pix_key_type: IWithdrawal['pixKeyType'];
  failure_reason: string | null;
  created_at: Instant;
  updated_at: Instant;
  completed_at: Instant;
  failed_at: Instant;
  returned_at: Instant;
};

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

// A merchant's available balance and what its open MED infractions are still owed (infractions' shortfall, not yet
// blocked): a debit must leave the first at least as large as the second.
export const AVAILABLE_AND_OWED = `select (select balance from ledger_accounts where code = ?) as balance,
  (select coalesce(sum(shortfall), 0) from infractions where merchant_id = ? and status in ('OPEN', 'UNDER_REVIEW'))
  as owed`;
