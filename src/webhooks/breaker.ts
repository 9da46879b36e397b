// The per-endpoint circuit breaker, shared by every daemon through webhook_breakers.
import { RECORD_UNHEALTHY, CLOSE, CLAIM_PROBE } from './breaker.sql.ts';
import type { PgPool } from '../platform/pg.ts';

/**
 * Per-endpoint circuit breaker, shared by every daemon through `webhook_breakers` (a row per webhook whose latest
 * outcomes were unhealthy; none for a healthy one, so the common path reads nothing but an empty join).
 *
 * Unhealthy: no HTTP answer (a timeout, a refused or reset connection), a 5xx or a 429. `threshold` of them in a row
 * (WEBHOOK_BREAKER_THRESHOLD, 10; 0 turns the breaker off), with no healthy answer between, open the breaker for a
 * cooldown: while it is open the webhook's deliveries are not sent, each attempt recorded at once as failed
 * (deliver.ts, CIRCUIT_OPEN) and retried on the contract's schedule, instead of holding the daemons' slots until
 * the timeout. When the cooldown ends, one delivery goes as a probe, claimed by one daemon (CLAIM_PROBE); the
 * endpoint's other deliveries wait for its verdict, deferred a second (x WEBHOOK_RETRY_SCALE) at a time. Any healthy answer (a 2xx, or a 4xx: the endpoint is up), the probe's or a straggler's, closes
 * the breaker (the row is deleted); an unhealthy probe opens it again for twice as long (at most `maxCooldownSeconds`).
 * Ten in a row, not fewer: an endpoint that fails one delivery in five should keep its deliveries (0.2^10).
 *
 * Its writes follow the recording of the attempts, best effort: a lost update costs one probe more or less, never a
 * delivery.
 */
export type BreakerSettings = {
  threshold: number; // unhealthy outcomes in a row that open it (0: never)
  // The first cooldown: 2.5 s x WEBHOOK_RETRY_SCALE, half the first retry's wait, so the first retries of the
  // deliveries that opened it come after it (one of them is the probe); doubled at each unhealthy probe.
  cooldownSeconds: number;
  maxCooldownSeconds: number; // 300 s x WEBHOOK_RETRY_SCALE
  probeSeconds: number; // a claimed probe's window: the POST timeout, and a second
};

export const breakerSettings = (threshold: number, timeoutMs: number, retryScale: number): BreakerSettings => ({
  threshold,
  cooldownSeconds: 2.5 * retryScale,
  maxCooldownSeconds: 300 * retryScale,
  probeSeconds: timeoutMs / 1000 + 1,
});

// Unhealthy: the endpoint did not answer, or answered that it is failing or overloaded.
export const unhealthy = (statusCode: number | null): boolean =>
  statusCode === null || statusCode >= 500 || statusCode === 429;

// An attempt's outcome for its webhook's breaker: a success (which RECORD_ATTEMPTS already closed it for), another
// healthy answer (a 4xx), or an unhealthy one.
export type BreakerOutcome = { webhookId: string; outcome: 'success' | 'healthy' | 'unhealthy' };

// After the attempts are recorded: healthy answers close the breakers of their webhooks, unhealthy outcomes count
// (but not for a webhook that also answered well within the same few milliseconds).
export async function recordOutcomes(db: PgPool, outcomes: BreakerOutcome[], s: BreakerSettings): Promise<void> {
  const answered = new Set(outcomes.filter((o) => o.outcome !== 'unhealthy').map((o) => o.webhookId));
  const close = [...new Set(outcomes.filter((o) => o.outcome === 'healthy').map((o) => o.webhookId))].sort();
  const failures = new Map<string, number>();
  for (const o of outcomes)
    if (o.outcome === 'unhealthy' && !answered.has(o.webhookId))
      failures.set(o.webhookId, (failures.get(o.webhookId) ?? 0) + 1);
  if (close.length) await db.run(CLOSE, [close]);
  if (failures.size)
    await db.run(RECORD_UNHEALTHY, [
      JSON.stringify([...failures].map(([webhook_id, n]) => ({ webhook_id, n }))),
      s.threshold,
      s.cooldownSeconds,
      s.maxCooldownSeconds,
    ]);
}

// Claims the probe of each of these webhooks (their breakers past their cooldown); returns those this daemon got.
export async function claimProbes(db: PgPool, webhookIds: string[], s: BreakerSettings): Promise<Set<string>> {
  if (webhookIds.length === 0) return new Set();
  const rows = await db.query<{ webhook_id: string }>(CLAIM_PROBE, [webhookIds, s.probeSeconds]);
  return new Set(rows.map((r) => r.webhook_id));
}
