import { PixApiError } from './errors.ts';

export type RetryOptions = {
  // Attempts after the first (default 3).
  maxRetries?: number;
  // The first wait; each next one doubles, with jitter (default 500 ms).
  retryBaseMs?: number;
  // The longest wait, a Retry-After's included (default 30 s).
  retryMaxMs?: number;
};

// What may be sent again: `all` (a GET, or a creation carrying its x-idempotency-key: a repeat creates nothing), or
// `rate-limited-only` (anything else: a 429 is refused before any work, a 5xx or a dropped connection may not be).
export type Repeatable = 'all' | 'rate-limited-only';

type Attempt<D> = () => Promise<{ data?: D; error?: unknown; response: Response }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Retry-After in seconds or as an HTTP date; undefined when absent or unreadable.
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

// Runs `attempt` until a 2xx (its data) or a refusal no retry can cure (PixApiError); network errors, 429 and 5xx
// are retried up to `maxRetries` times, waiting base × 2^n (half of it random: clients that failed together do not
// come back together), or the 429's Retry-After.
export async function withRetries<D>(attempt: Attempt<D>, repeatable: Repeatable, opts: RetryOptions = {}): Promise<D> {
  const { maxRetries = 3, retryBaseMs = 500, retryMaxMs = 30_000 } = opts;
  for (let n = 0; ; n++) {
    const backoff = Math.min(retryBaseMs * 2 ** n * (0.5 + Math.random() / 2), retryMaxMs);
    let result: Awaited<ReturnType<Attempt<D>>>;
    try {
      result = await attempt();
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') throw err; // the caller's signal
      if (repeatable !== 'all' || n >= maxRetries)
        throw new PixApiError({ status: 0, code: 'network_error', message: (err as Error).message }, { cause: err });
      await sleep(backoff);
      continue;
    }
    const { response } = result;
    if (response.ok) return result.data as D;
    const retryable = response.status === 429 || (repeatable === 'all' && response.status >= 500);
    if (!retryable || n >= maxRetries) throw PixApiError.from(response, result.error);
    await sleep(Math.min(retryAfterMs(response) ?? backoff, retryMaxMs));
  }
}
