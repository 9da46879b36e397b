// Every statement on the withdrawals table (declared `$n` statements, run through ormSql), with its rows.
import type { PageSpec } from '../platform/counters.ts';
import { from, statement, to, type Transition } from '../platform/sql.ts';
import type { IWithdrawal, WithdrawalStatus } from './withdrawal.entity.ts';

// A transition's statement takes its row of WITHDRAWAL_TRANSITIONS (withdrawals.states.ts): `from` guards it, `to` is
// set (accept and return keep the status: they set only what they record).
type T = Transition<WithdrawalStatus>;

// Each transition returns the row after the change (only when this call made it, so it happens once). The first
// parameter is the withdrawal's id.
export const ACCEPT = (t: T) =>
  statement(
    'withdrawals.accept',
    `
  update withdrawals set batch_id = $2, updated_at = now()
   where id = $1 and status in (${from(t)}) and batch_id is null
  returning *`,
  );
// Parameters: id, batch id (null: kept).
export const COMPLETE = (t: T) =>
  statement(
    'withdrawals.complete',
    `
  update withdrawals set status = ${to(t)}, completed_at = now(), updated_at = now(),
                         batch_id = coalesce($2::text, batch_id)
   where id = $1 and status in (${from(t)})
  returning *`,
  );
// Parameters: id, batch id (null: kept), failure reason.
export const FAIL = (t: T) =>
  statement(
    'withdrawals.fail',
    `
  update withdrawals set status = ${to(t)}, failed_at = now(), updated_at = now(), failure_reason = $3,
                         batch_id = coalesce($2::text, batch_id)
   where id = $1 and status in (${from(t)})
  returning *`,
  );
export const RETURN = (t: T) =>
  statement(
    'withdrawals.return',
    `
  update withdrawals set returned_at = now(), updated_at = now()
   where id = $1 and status in (${from(t)}) and returned_at is null
  returning *`,
  );

// The withdrawals listing (countedPage).
export const WITHDRAWAL_PAGE: PageSpec = {
  table: 'withdrawals',
  alias: 'w',
  counter: { table: 'withdrawal_counts', keys: 'merchant_id' },
  columns: 'w.*',
};

export type Instant = Date | string | null | undefined; // raw SQL returns timestamps as text

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
