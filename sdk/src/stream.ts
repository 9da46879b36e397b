import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { PixEvent } from './events.ts';
import type { paths } from './openapi.ts';

// One event of GET /v1/events/stream: the JSON text exactly as the API sent it (what webhooks deliver) and parsed.
export type StreamedEvent = { id: string; raw: string; event: PixEvent };

export type StreamEventsOptions = {
  baseUrl: string;
  token: string;
  // Resume right after this event id; without it, start with the merchant's next event.
  lastEventId?: string;
  signal?: AbortSignal;
  // Nothing read for this long (the API sends a heartbeat at least every 15 s): the connection is dead, reconnect.
  idleTimeoutMs?: number;
  // Told each (re)connection and each drop, e.g. to log them.
  onConnect?: (lastEventId: string | undefined) => void;
  onDisconnect?: (reason: string, retryInMs: number) => void;
};

// A refusal no reconnection can cure (a bad or revoked credential, a blocked merchant, an unknown event id).
export class StreamError extends Error {
  status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'StreamError';
    this.status = status;
  }
}

const FATAL = new Set([400, 401, 403, 404]);
const MAX_BACKOFF_MS = 30_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function messageOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text || res.statusText;
  }
}

// The merchant's latest event, so a stream that drops before its first event resumes from there (the API's own
// `id:` announcement of it carries no event, which the SSE parser does not report).
async function latestEventId(opts: StreamEventsOptions): Promise<string | undefined> {
  // plain fetch, as the stream itself: the typed client's module builds on this one (resources.ts)
  const res = await fetch(`${opts.baseUrl.replace(/\/+$/, '')}/v1/events?limit=1`, {
    headers: { authorization: `Bearer ${opts.token}`, accept: 'application/json' },
    signal: opts.signal,
  });
  if (!res.ok) throw new StreamError(res.status, await messageOf(res));
  const page = (await res.json()) as paths['/v1/events']['get']['responses'][200]['content']['application/json'];
  return page.events[0]?.id;
}

// Every event of GET /v1/events/stream, in commit order, across reconnections: each resumes with Last-Event-ID, so
// none is missed or repeated. Ends when `signal` aborts; throws StreamError when the API refuses the stream for good.
export async function* streamEvents(opts: StreamEventsOptions): AsyncGenerator<StreamedEvent> {
  const { signal, idleTimeoutMs = 45_000 } = opts;
  let cursor = opts.lastEventId ?? (await latestEventId(opts));
  let retryMs = 2000; // until the API says (`retry:`)
  let failures = 0;
  while (!signal?.aborted) {
    const connection = new AbortController();
    const abort = () => connection.abort();
    signal?.addEventListener('abort', abort, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error(`no data for ${idleTimeoutMs} ms`)), idleTimeoutMs);
    };
    let reason = 'the API ended the stream';
    try {
      alive();
      const res = await fetch(`${opts.baseUrl.replace(/\/+$/, '')}/v1/events/stream`, {
        headers: {
          authorization: `Bearer ${opts.token}`,
          accept: 'text/event-stream',
          ...(cursor ? { 'last-event-id': cursor } : {}),
        },
        signal: connection.signal,
      });
      if (res.status !== 200 || !res.body) {
        const message = await messageOf(res);
        if (FATAL.has(res.status)) throw new StreamError(res.status, message);
        throw new Error(`HTTP ${res.status}: ${message}`); // 429 (too many streams), 503 (a restart): try again
      }
      failures = 0;
      opts.onConnect?.(cursor);
      const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(
        new EventSourceParserStream({
          onRetry: (ms) => (retryMs = ms),
          onComment: alive, // heartbeats
        }),
      );
      for await (const message of events) {
        alive();
        if (!message.id) continue;
        cursor = message.id;
        yield { id: message.id, raw: message.data, event: JSON.parse(message.data) as PixEvent };
      }
    } catch (err) {
      if (err instanceof StreamError) throw err;
      if (signal?.aborted) return;
      failures++;
      reason = connection.signal.reason instanceof Error ? connection.signal.reason.message : (err as Error).message;
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', abort);
      connection.abort();
    }
    if (signal?.aborted) return;
    const wait = Math.min(retryMs * 2 ** Math.max(0, failures - 1), MAX_BACKOFF_MS);
    opts.onDisconnect?.(reason, wait);
    await sleep(wait, signal);
  }
}
