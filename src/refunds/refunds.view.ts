// A refund (devolução) as the API shows it: inside its charge (the latest), in its charge's list, as the answer to a
// refund request, and in charge.refunded's data.
import type { RefundViewRow } from './refunds.sql.ts';

export const refundView = (r: RefundViewRow) => ({
  id: r.id,
  amount: Number(r.amount), // a bigint column
  reason: r.reason,
  // reverseSplits: what each split's recipient gives back of it (empty when the owner bears it all)
  reverseSplits: r.split_shares !== null,
  splits: (r.split_shares ?? []).map((s) => ({ merchantId: s.merchantId, amount: s.amount })),
  status: r.status,
  failureReason: r.failure_reason,
  createdAt: new Date(r.created_at).toISOString(),
  completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
  failedAt: r.failed_at ? new Date(r.failed_at).toISOString() : null,
});
