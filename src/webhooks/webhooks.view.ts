// A delivery as the API shows it (its contract status).
import type { LogRow } from './webhooks.sql.ts';

const iso = (d: Date | string) => new Date(d).toISOString();

// The contract's three statuses: a delivery canceled because its webhook was paused or deleted ended without success,
// like one that ran out of attempts (and POST /recover re-queues both).
const STATUS: Record<string, 'PENDING' | 'SUCCEEDED' | 'FAILED'> = {
  PENDING: 'PENDING',
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
  CANCELED: 'FAILED',
};

// A delivery log as the API lists it (spec 2.6, plus the contract's status and nextAttemptAt).
export const logView = (r: LogRow) => ({
  id: r.id,
  deliveryId: r.delivery_id,
  event: r.event_type,
  url: r.url,
  payload: r.payload,
  statusCode: r.status_code,
  response: r.response,
  attempts: r.attempts,
  success: r.success,
  status: STATUS[r.status],
  nextAttemptAt: r.status === 'PENDING' && r.next_attempt_at ? iso(r.next_attempt_at) : null,
  createdAt: iso(r.created_at),
});
