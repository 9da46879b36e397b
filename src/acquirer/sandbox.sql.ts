// The sandbox acquirer's book of transfers (sandbox_transfers): declared `$n` statements, run through ormSql.
import { from, statement, to } from '../platform/sql.ts';
import type { TransferResult } from './acquirer.ts';
import { SANDBOX_TRANSFER_TRANSITIONS as T } from './sandbox.states.ts';

export type TransferRow = { status: TransferResult['status']; batch_id: string | null; failure_reason: string | null };

// Books a transfer once per idempotency key; a repeat only counts the request (proof that a retry did not send twice).
// Parameters: idempotency key, amount, pix key, its type, description, status, batch id, failure reason.
export const BOOK_TRANSFER = statement(
  'acquirer.sandbox_book_transfer',
  `
  insert into sandbox_transfers (idempotency_key, amount, pix_key, pix_key_type, description, status, batch_id,
                                 failure_reason, requests, created_at, updated_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8, 1, now(), now())
      on conflict (idempotency_key) do update set requests = sandbox_transfers.requests + 1
  returning status, batch_id, failure_reason, amount, pix_key, (xmax = 0) as inserted`,
);

export const TRANSFER = statement(
  'acquirer.sandbox_transfer',
  `
  select status, batch_id, failure_reason
    from sandbox_transfers
   where idempotency_key = $1`,
);

// A transfer's steps, written from SANDBOX_TRANSFER_TRANSITIONS (parameter: idempotency key).
export const COMPLETE_TRANSFER = statement(
  'acquirer.sandbox_complete_transfer',
  `
  update sandbox_transfers set status = ${to(T.settle)}, updated_at = now()
   where idempotency_key = $1 and status in (${from(T.settle)})
  returning pix_key`,
);

export const RETURN_TRANSFER = statement(
  'acquirer.sandbox_return_transfer',
  `
  update sandbox_transfers set status = ${to(T.return)}, updated_at = now()
   where idempotency_key = $1 and status in (${from(T.return)})`,
);
