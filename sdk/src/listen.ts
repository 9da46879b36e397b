import type { EventName } from './events.ts';
import { streamEvents } from './stream.ts';
import { newWebhookSecret, signWebhook } from './webhooks.ts';

export type ListenOptions = {
  baseUrl: string;
  token: string;
  forwardTo: string;
  events?: readonly EventName[]; // all when absent or empty
  secret?: string; // a `whsec_…` to sign with; a new one when absent
  userAgent?: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
};

const FORWARD_TIMEOUT_MS = 10_000; // as the API's own deliveries

// Forwards the merchant's events, as they happen, to `forwardTo`, each signed as the API signs its webhook deliveries
// (Standard Webhooks, with `secret`), one at a time in the stream's order. A failed forward is logged and not retried:
// the event stays in GET /v1/events. Resolves when `signal` aborts.
export async function listen(opts: ListenOptions): Promise<void> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const secret = opts.secret ?? newWebhookSecret();
  const wanted = new Set(opts.events ?? []);
  const at = () => new Date().toISOString();
  log(`> Ready! Forwarding the events of ${opts.baseUrl} to ${opts.forwardTo}`);
  log(`> Your webhook signing secret is ${secret} (Ctrl-C to quit)`);
  const stream = streamEvents({
    baseUrl: opts.baseUrl,
    token: opts.token,
    signal: opts.signal,
    onConnect: (cursor) => log(`${at()}  connected to the event stream${cursor ? ` after ${cursor}` : ''}`),
    onDisconnect: (reason, ms) => log(`${at()}  stream lost (${reason}); reconnecting in ${ms} ms`),
  });
  for await (const { id, raw, event } of stream) {
    if (wanted.size && !wanted.has(event.event)) continue;
    log(`${at()}  --> ${event.event} [${id}]`);
    // one webhook-id per event, as a delivery's is stable across its retries: the receiver can deduplicate on it
    const headers = signWebhook(secret, `msg_${id.replaceAll('-', '')}`, raw);
    try {
      const res = await fetch(opts.forwardTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(opts.userAgent ? { 'user-agent': opts.userAgent } : {}),
          ...headers,
        },
        body: raw,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(FORWARD_TIMEOUT_MS), ...(opts.signal ? [opts.signal] : [])]),
      });
      await res.body?.cancel();
      log(`${at()}  <-- [${res.status}] POST ${opts.forwardTo} [${id}]`);
    } catch (err) {
      if (opts.signal?.aborted) break;
      log(`${at()}  <-- [ERR] POST ${opts.forwardTo} [${id}]: ${(err as Error).message}`);
    }
  }
}
