// The hub of an API process' event streams: who is connected, woken by LISTEN, capped per merchant.
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { createPgPool, type PgPool } from '../platform/pg.ts';
import { canPrepare } from '../platform/prepared.ts';
import type { Listener } from '../platform/listener.ts';
import { HttpError, NotFoundError } from '../platform/errors.ts';
import { newId } from '../platform/base.entity.ts';
import { sequencePass, SEQUENCE_BATCH } from './sequencer.ts';
import * as sql from './stream.sql.ts';
import { principalsOf, refusalOf, type HeldCredential } from '../auth/auth.service.ts';
import { PRINCIPALS_CHANNEL } from '../auth/principal-cache.ts';

export const MAX_STREAMS_PER_MERCHANT = 5;
export const TOO_MANY_STREAMS = `Limite de ${MAX_STREAMS_PER_MERCHANT} conexões abertas ao stream de eventos atingido`;
const POOL_MAX = 3; // short reads and writes: streams take turns
const POLL_MS = 500; // without LISTEN (a transaction pooler and no direct URL), how often positions are looked for
const BACKSTOP_MS = 5000; // with LISTEN: a pass anyway, in case a notification was lost
const BUSY_RETRY_MS = 100; // another process was giving positions: look again soon, it may have missed ours
const TOUCH_MS = 15_000; // open connections are refreshed this often…
const STALE_SECONDS = 60; // …and one not refreshed for this long belongs to a process that died

// One open stream, as the hub sees it; `end` tells the client why when its credential stopped opening the API.
export type Subscriber = {
  merchantId: string;
  slot: string;
  credential: HeldCredential;
  wake: () => void;
  end: (refusal?: string) => void;
};
// Where a stream starts: after position `seq`; `announce`, the event id to send first when the client gave none.
export type Start = { seq: number; announce: string | null };

export type EventStreams = {
  db: PgPool;
  logger: Logger;
  start: (merchantId: string, after: string | undefined) => Promise<Start>;
  claim: (merchantId: string) => Promise<string>;
  subscribe: (s: Subscriber) => () => Promise<void>;
  sent: (n: number) => void;
  stats: () => { open: number; sent: number; listening: boolean };
  close: () => Promise<void>;
};

// Runs `pass` one at a time; a kick during a run runs it once more after (nothing is missed, nothing piles up). A
// failure is logged once until a pass succeeds again (a database outage would otherwise log twice a second).
function serial(pass: () => Promise<boolean>, logger: Logger, what: string) {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let failing = false;
  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          if (await pass()) again = true;
          if (failing) logger.info(`event stream ${what} works again`);
          failing = false;
        } catch (err) {
          if (!stopped && !failing) logger.warn({ err }, `event stream ${what} failed; retrying`);
          failing = true;
        }
      } while (again && !stopped);
      running = null;
    })();
  };
  const stop = async () => {
    stopped = true;
    await running;
  };
  return { kick, stop };
}

/**
 * The API process' side of the live stream (one per process): the sequencer (positions, sequencer.ts), the watcher
 * that wakes this process' streams when their merchant has new positions, the open connections counted in PostgreSQL
 * for the per-merchant limit, and the wake-ups: LISTEN on pix_events (an event committed) and pix_event_stream
 * (positions given), through DATABASE_DIRECT_URL behind a transaction pooler; polling when there is no LISTEN. And the
 * credentials of its streams, checked again all together (one query per kind) the moment the database announces a
 * change to any credential (pix_principals: a key revoked, a merchant blocked), when LISTEN comes back (one may have
 * been missed), and every `credentialCheckMs` anyway: a stream whose credential no longer opens the API ends.
 */
export function createEventStreams(
  { config, logger, listener }: { config: Config; logger: Logger; listener: Listener },
  { credentialCheckMs = 60_000 } = {}, // the check of every open stream's credential, notifications or not
): EventStreams {
  const db = createPgPool(config.databaseUrl, POOL_MAX, logger, 'event-streams', canPrepare(config));
  const subscribers = new Map<string, Set<Subscriber>>();
  let open = 0;
  let sentTotal = 0;
  let closed = false;
  let lastSeq: number | null = null; // the watcher's position; null: read it again (and wake everyone)

  const sequencer = serial(
    async () => {
      const n = await sequencePass(db);
      if (n === null) {
        setTimeout(() => sequencer.kick(), BUSY_RETRY_MS).unref();
        return false;
      }
      if (n > 0) watcher.kick();
      return n === SEQUENCE_BATCH;
    },
    logger,
    'sequencer',
  );

  const wakeAll = () => subscribers.forEach((set) => set.forEach((s) => s.wake()));
  const watcher = serial(
    async () => {
      if (subscribers.size === 0) {
        lastSeq = null; // nobody to wake: no query; the first stream reads the head again
        return false;
      }
      if (lastSeq === null) {
        lastSeq = Number((await db.query<{ seq: string }>(sql.HEAD))[0].seq);
        wakeAll();
        return false;
      }
      const rows = await db.query<{ merchant_id: string; seq: string }>(sql.ADVANCED, [lastSeq]);
      for (const r of rows) {
        lastSeq = Math.max(lastSeq, Number(r.seq));
        subscribers.get(r.merchant_id)?.forEach((s) => s.wake());
      }
      return false;
    },
    logger,
    'watcher',
  );

  // LISTEN (the process' shared listener); while it is down the poll below runs at full rate.
  listener.on('pix_events', () => sequencer.kick());
  listener.on('pix_event_stream', () => watcher.kick());
  listener.on(PRINCIPALS_CHANNEL, () => credentials.kick());
  listener.onState((up) => {
    if (closed || !up) return;
    // anything committed while nobody listened
    sequencer.kick();
    watcher.kick();
    credentials.kick();
  });

  // Ends the streams whose credential no longer opens the API. A pass started before a change committed may read the
  // old state, but the change's notification kicks another pass after it (serial).
  const credentials = serial(
    async () => {
      const all = [...subscribers.values()].flatMap((set) => [...set]);
      const lookups = (via: HeldCredential['via']) => [
        ...new Set(all.filter((s) => s.credential.via === via).map((s) => s.credential.lookup)),
      ];
      const rows = await principalsOf(db, { apiKey: lookups('apiKey'), jwt: lookups('jwt') });
      for (const s of all) {
        const refusal = refusalOf(s.credential, rows.get(`${s.credential.via}:${s.credential.lookup}`), s.merchantId);
        if (refusal) s.end(refusal);
      }
      return false;
    },
    logger,
    'credential check',
  );
  const recheck = setInterval(() => credentials.kick(), credentialCheckMs);
  recheck.unref();

  let ticks = 0;
  const poll = setInterval(() => {
    ticks++;
    if (listener.up && ticks % (BACKSTOP_MS / POLL_MS) !== 0) return;
    sequencer.kick();
    watcher.kick();
  }, POLL_MS);
  poll.unref();
  sequencer.kick();

  // Refreshes this process' open connections, so other processes count them (and stop counting them if it dies).
  const touch = setInterval(() => {
    const slots = [...subscribers.values()].flatMap((set) => [...set].map((s) => s.slot));
    if (slots.length)
      db.query(sql.TOUCH_CONNECTIONS, [slots]).catch((err: unknown) =>
        logger.warn({ err }, 'refreshing event stream connections failed'),
      );
  }, TOUCH_MS);
  touch.unref();

  async function start(merchantId: string, after: string | undefined): Promise<Start> {
    if (!after) {
      const [latest] = await db.query<{ seq: string; event_id: string }>(sql.LATEST_OF, [merchantId]);
      return latest ? { seq: Number(latest.seq), announce: latest.event_id } : { seq: 0, announce: null };
    }
    for (let attempt = 0; ; attempt++) {
      const [row] = await db.query<{ seq: string | null }>(sql.POSITION_OF, [after, merchantId]);
      if (!row) throw new NotFoundError('Evento não encontrado');
      if (row.seq !== null) return { seq: Number(row.seq), announce: null };
      // committed, not positioned yet (the client read it from the listing): position it now
      if (attempt === 50) throw new Error(`event ${after} got no stream position in time`);
      if ((await sequencePass(db)) === null) await new Promise((r) => setTimeout(r, 20));
    }
  }

  // A place among the merchant's open streams, counted across every API process, or 429.
  async function claim(merchantId: string): Promise<string> {
    if (closed) throw new HttpError(503, 'Servidor reiniciando: reconecte em instantes', 'service_restarting');
    const slot = newId();
    await db.tx(async ({ query }) => {
      await query(sql.LOCK_MERCHANT_STREAMS, [merchantId]);
      await query(sql.DROP_STALE_CONNECTIONS, [merchantId, STALE_SECONDS]);
      const [{ n }] = await query<{ n: number }>(sql.COUNT_CONNECTIONS, [merchantId]);
      if (n >= MAX_STREAMS_PER_MERCHANT) throw new HttpError(429, TOO_MANY_STREAMS, 'too_many_streams');
      await query(sql.INSERT_CONNECTION, [slot, merchantId]);
    });
    return slot;
  }

  function subscribe(s: Subscriber): () => Promise<void> {
    if (closed) setImmediate(s.end); // opened while this process was stopping
    let set = subscribers.get(s.merchantId);
    if (!set) subscribers.set(s.merchantId, (set = new Set()));
    set.add(s);
    open++;
    if (lastSeq === null) watcher.kick();
    return () => {
      set.delete(s);
      if (set.size === 0 && subscribers.get(s.merchantId) === set) subscribers.delete(s.merchantId);
      open--;
      const released = db.query(sql.DELETE_CONNECTION, [s.slot]).then(
        () => {},
        (err: unknown) => logger.warn({ err }, 'releasing an event stream connection failed'),
      );
      releasing.add(released);
      return released.finally(() => releasing.delete(released));
    };
  }

  const releasing = new Set<Promise<void>>(); // connection rows being deleted: close() waits for them
  return {
    db,
    logger,
    start,
    claim,
    subscribe,
    sent: (n) => (sentTotal += n),
    stats: () => ({ open, sent: sentTotal, listening: listener.up }),
    // Ends every stream (their clients reconnect elsewhere with Last-Event-ID), then stops and closes the pool.
    async close() {
      if (closed) return;
      closed = true;
      subscribers.forEach((set) => set.forEach((s) => s.end()));
      await Promise.all(releasing);
      clearInterval(poll);
      clearInterval(touch);
      clearInterval(recheck);
      await Promise.all([sequencer.stop(), watcher.stop(), credentials.stop()]);
      await db.close();
    },
  };
}
