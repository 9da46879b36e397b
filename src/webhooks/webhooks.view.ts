import type { LogRow } from './webhooks.sql.ts';

const iso = (d: Date | string) => new Date(d).toISOString();

// A delivery log as the API lists it (spec 2.6).
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
  createdAt: iso(r.created_at),
});
