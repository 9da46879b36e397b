// The sandbox acquirer's book of transfers (sandbox_transfers), run through MikroORM: `?` parameters.
import type { TransferResult } from './acquirer.ts';

export type TransferRow = { status: TransferResult['status']; batch_id: string | null; failure_reason: string | null };

// Books a transfer once per idempotency key; a repeat only counts the request (proof that a retry did not send twice).
export const BOOK_TRANSFER = `
  insert into sandbox_transfers (idempotency_key, amount, pix_key, pix_key_type, description, status, batch_id,
                                 failure_reason, requests, created_at, updated_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, 1, now(), now())
      on conflict (idempotency_key) do update set requests = sandbox_transfers.requests + 1
  returning status, batch_id, failure_reason, amount, pix_key, (xmax = 0) as inserted`;

export const TRANSFER = `
  select status, batch_id, failure_reason
    from sandbox_transfers
   where idempotency_key = ?`;

export const COMPLETE_TRANSFER = `
  update sandbox_transfers set status = 'COMPLETED', updated_at = now()
   where idempotency_key = ? and status = 'PROCESSING'
  returning pix_key`;

export const RETURN_TRANSFER = `
  update sandbox_transfers set status = 'RETURNED', updated_at = now()
   where idempotency_key = ? and status = 'COMPLETED'`;
