// Every statement on the withdrawals table (run through MikroORM: `?` parameters), with its rows.
import type { PageSpec } from '../platform/counters.ts';
import { statuses, type Transition } from '../platform/sql.ts';
import type { IWithdrawal, WithdrawalStatus } from './withdrawal.entity.ts';

// A transition's statement takes its row of WITHDRAWAL_TRANSITIONS (withdrawals.states.ts): `from` guards it, `to` is
// set (accept and return keep the status: they set only what they record).
type T = Transition<WithdrawalStatus>;

// Each transition returns the row after the change (only when this call made it, so it happens once).
export const ACCEPT = (t: T) => `
  update withdrawals set batch_id = ?, updated_at = now()
   where id = ? and status in (${statuses(t.from)}) and batch_id is null
  returning *`;
export const COMPLETE = (t: T) => `
  update withdrawals set status = ${statuses([t.to])}, completed_at = now(), updated_at = now(),
                         batch_id = coalesce(?, batch_id)
   where id = ? and status in (${statuses(t.from)})
  returning *`;
export const FAIL = (t: T) => `
  update withdrawals set status = ${statuses([t.to])}, failed_at = now(), updated_at = now(), failure_reason = ?,
                         batch_id = coalesce(?, batch_id)
   where id = ? and status in (${statuses(t.from)})
  returning *`;
export const RETURN = (t: T) => `
  update withdrawals set returned_at = now(), updated_at = now()
   where id = ? and status in (${statuses(t.from)}) and returned_at is null
  returning *`;

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
