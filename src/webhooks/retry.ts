// Contract: attempts at about 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed for good.
// RETRY_DELAYS[n] is the wait after the (n+1)-th failed attempt; one attempt more than delays.
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

// A Retry-After longer than the longest step is capped there, so one answer cannot park a delivery for days.
const RETRY_AFTER_CAP_SECONDS = 10 * 3600;

/**
 * Seconds until the next attempt after `failedSteps` failed attempts of this run (1-based), or null when the schedule
 * is exhausted. Every step is multiplied by `scale` (WEBHOOK_RETRY_SCALE); a receiver's Retry-After wins when longer.
 */
export function nextRetryDelay(failedSteps: number, scale: number, retryAfter: number | null = null): number | null {
  if (failedSteps >= MAX_ATTEMPTS) return null;
  const scheduled = RETRY_DELAYS_SECONDS[failedSteps - 1] * scale;
  return retryAfter === null ? scheduled : Math.max(scheduled, Math.min(retryAfter, RETRY_AFTER_CAP_SECONDS));
}
