// One server-sent event stream: the events after a cursor, then each new one as it is positioned.
import type { Response } from 'express';
import { refusalOf, type HeldCredential } from '../auth/auth.service.ts';
import { AUTH_MESSAGES } from '../platform/errors.ts';
import { eventBody } from '../webhooks/outbox.ts';
import type { EventStreams } from './streams.ts';
import { AFTER, type StreamRow } from './stream.sql.ts';

const PAGE = 100; // events read (and written) at a time: what one connection holds in memory at most
const HEARTBEAT_MS = 10_000; // a comment line this often, well under the 15 s promised and proxies' idle timeouts
const BACKSTOP_MS = 60_000; // read again anyway this often, should a wake-up ever be missed
const RETRY_MS = 2000; // after a failed read (PostgreSQL restarting)
const DRAIN_TIMEOUT_MS = 60_000; // a client that reads nothing for this long is disconnected (it resumes later)
const RECONNECT_MS = 2000; // the `retry:` EventSource clients wait before reconnecting

// The body is the event as the API lists it and webhooks deliver it; JSON text never holds a line break.
const frame = (r: StreamRow) => `id: ${r.id}\nevent: ${r.type}\ndata: ${JSON.stringify(eventBody(r))}\n\n`;

/**
 * One open stream: the events of `merchantId` after `start`, in stream order, written a page at a time, and the next
 * page only once the client has taken the last one (the socket drained): a slow client holds one page in memory,
 * never a backlog. The cursor only moves past what was written; a resume is `Last-Event-ID` of the last event read.
 * It lives only as long as `credential` opens the API: each read carries the credential's state in the same snapshot,
 * so nothing committed after a revocation is ever sent (the stream ends instead); the hub ends it the moment the
 * database announces the change, and a JWT's stream ends at its expiry. The client is told why in a last comment,
 * `: encerrado: <the message its reconnection gets with a 401 or 403>`.
 */
export async function openStream(
  hub: EventStreams,
  res: Response,
  merchantId: string,
  after: string | undefined,
  credential: HeldCredential,
): Promise<void> {
  const start = await hub.start(merchantId, after); // 404 for an id that is not this merchant's event
  const slot = await hub.claim(merchantId); // 429 past the limit
  let cursor = start.seq;
  let closed = false;
  let dirty = true; // read at once
  let failing = false; // the last read failed (logged once)
  let wakeUp: (() => void) | null = null;
  const wake = () => {
    dirty = true;
    wakeUp?.();
  };
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeUp = done;
    });

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no', // proxies that buffer responses (nginx) pass each event on at once
  });
  res.socket?.setNoDelay(true);
  res.socket?.setKeepAlive(true, HEARTBEAT_MS);
  res.write(`retry: ${RECONNECT_MS}\n: ok\n\n` + (start.announce ? `id: ${start.announce}\n\n` : ''));

  const heartbeat = setInterval(() => {
    if (!res.writableNeedDrain) res.write(': heartbeat\n\n');
  }, HEARTBEAT_MS);
  let unsubscribe: () => Promise<void> = async () => {};
  let expiry: NodeJS.Timeout | undefined;
  const end = (refusal?: string) => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    wakeUp?.();
    void unsubscribe();
    if (refusal) {
      hub.logger.info({ merchantId, refusal }, 'event stream ended: its credential no longer opens the API');
      res.end(`: encerrado: ${refusal}\n\n`);
    } else res.end();
  };
  unsubscribe = hub.subscribe({ merchantId, slot, credential, wake, end });
  // A JWT's stream ends when the JWT does (at most 7 days: under setTimeout's limit of 24.8), not a moment before.
  const expire = (at: number) => {
    const left = at - Date.now();
    if (left > 0) expiry = setTimeout(() => expire(at), left);
    else end(AUTH_MESSAGES.invalidToken);
  };
  if (credential.expiresAt !== null) expire(credential.expiresAt);
  res.on('close', end);
  if (res.destroyed) end(); // the client left while the stream was being opened

  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      const timer = setTimeout(() => {
        hub.logger.info({ merchantId }, 'event stream client read nothing for too long: disconnected');
        res.destroy();
        done();
      }, DRAIN_TIMEOUT_MS);
      res.once('drain', done);
      res.once('close', done);
    });

  while (!closed) {
    if (!dirty) await wait(BACKSTOP_MS);
    if (closed) break;
    dirty = false;
    let rows: StreamRow[];
    try {
      rows = await hub.db.query<StreamRow>(AFTER[credential.via], [credential.lookup, merchantId, cursor, PAGE]);
    } catch (err) {
      if (closed) break;
      if (!failing) hub.logger.warn({ err, merchantId }, 'event stream read failed; retrying');
      failing = true;
      await wait(RETRY_MS);
      dirty = true;
      continue;
    }
    failing = false;
    if (rows.length === 0 || closed) continue;
    const refusal = refusalOf(credential, rows[0].principal ?? undefined, merchantId);
    if (refusal) {
      end(refusal);
      break;
    }
    cursor = Number(rows[rows.length - 1].seq);
    hub.sent(rows.length);
    if (rows.length === PAGE) dirty = true;
    if (!res.write(rows.map(frame).join(''))) await drained();
  }
}
