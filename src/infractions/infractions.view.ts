// An infraction as the API and the webhooks show it.
import type { InfractionRow } from './infractions.sql.ts';

// The infraction as the API and the webhooks show it (contract: id, chargeId, amount, status, reason, defense,
// createdAt, updatedAt, deadlineAt), plus what of the amount is blocked so far.
export const infractionView = (r: InfractionRow) => ({
  id: r.id,
  chargeId: r.charge_id,
  amount: r.amount,
  status: r.status,
  reason: r.reason,
  defense: r.defense,
  blockedAmount: r.blocked,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  deadlineAt: new Date(r.deadline_at).toISOString(),
});
export type InfractionView = ReturnType<typeof infractionView>;
