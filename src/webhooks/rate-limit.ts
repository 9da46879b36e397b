// Per-endpoint rate limits of the deliveries, shared by every daemon.
import { ENSURE_SLOTS, RESERVE_SLOTS } from './rate-limit.sql.ts';
import type { PgPool } from '../platform/pg.ts';

/**
 * Per-endpoint rate limits shared by every daemon (contract: `rateLimit`, deliveries per second, 1..1000).
 *
 * Each rate-limited webhook has one row in webhook_rate_slots: `next_at`, the first sending slot nobody holds.
 * A daemon holding n deliveries for it reserves, in one short statement, up to n consecutive slots 1/rate seconds
 * apart, starting at max(next_at, now), but only those starting within HORIZON_SECONDS; it POSTs each at its slot and
 * defers the rest (their jobs re-enqueued for their would-be slots, no attempt counted). Slots never overlap whatever
 * the number of daemons (the row lock serialises the reservations, and the UPDATE re-reads `next_at` after waiting on
 * it), so the endpoint never gets more than `rate` deliveries in any second. Other webhooks' deliveries never wait:
 * only this row is locked, for the length of one statement, and POSTs of one batch run concurrently.
 * Times are PostgreSQL's clock (clock_timestamp), the one clock all daemons share; a daemon turns them into waits.
 */
export const HORIZON_SECONDS = 1;

export type Reservation = { wait: number; granted: number; rate: number };

// Reserves slots for each webhook (`n` deliveries at `rate` per second): the wait until the first, and how many.
export async function reserveSlots(
  db: PgPool,
  wanted: { webhookId: string; n: number; rate: number }[],
): Promise<Map<string, Reservation>> {
  if (wanted.length === 0) return new Map();
  await db.run(ENSURE_SLOTS, [wanted.map((w) => w.webhookId)]);
  const rows = await db.query<{ webhook_id: string; wait: number; granted: number }>(RESERVE_SLOTS, [
    JSON.stringify(wanted.map((w) => ({ webhook_id: w.webhookId, n: w.n, rate: w.rate }))),
    HORIZON_SECONDS,
  ]);
  const rate = new Map(wanted.map((w) => [w.webhookId, w.rate]));
  return new Map(
    rows.map((r) => [r.webhook_id, { wait: Math.max(0, r.wait), granted: r.granted, rate: rate.get(r.webhook_id)! }]),
  );
}
