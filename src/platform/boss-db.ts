// pg-boss' database: our own pg pool, given to pg-boss through its documented `db` option (no private import).
import pg from 'pg';
import type { Db } from 'pg-boss';
import { pgConnection } from './pg-ssl.ts';
import { clientFor, foreignStatement, planOutdated } from './prepared.ts';

// The settings of pg-boss' built-in pool, kept: its application name, its connect timeout, its LISTEN heartbeat.
const APPLICATION_NAME = 'pgboss';
const connectionTimeoutMillis = 10_000;
const LISTEN_HEARTBEAT_MS = 10_000; // a silent drop is found within one interval and one timeout
const LISTEN_HEARTBEAT_TIMEOUT_MS = 5_000;
const LISTEN_KEEP_ALIVE_DELAY_MS = 10_000;
const LISTEN_BACKOFF_MAX_MS = 30_000;

type ListenHandle = { close: () => Promise<void> };
export type BossDb = Required<Pick<Db, 'executeSql' | 'listen'>> & { close: () => Promise<void> };

/**
 * A pool of `max` connections to `databaseUrl` for pg-boss: its statements named (prepared.ts: its fetch, insert and
 * complete are planned once per connection) unless `prepare` is false (behind a pooler in transaction mode); its
 * LISTEN connection opened on `listenUrl` when given (a direct URL), else on `databaseUrl`. pg-boss neither opens nor
 * closes a `db` it was given: the pool connects on demand and `close` (createBoss' stop) ends it. `onError` hears what
 * pg-boss' own pool would have emitted as its `error` (an idle connection lost, a LISTEN connection dropped).
 */
export function bossDb(
  databaseUrl: string,
  opts: { max: number; prepare: boolean; listenUrl?: string; onError: (err: unknown) => void },
): BossDb {
  const { url, ssl } = pgConnection(databaseUrl);
  const config = { connectionString: url, ssl, application_name: APPLICATION_NAME, connectionTimeoutMillis };
  const pool = new pg.Pool({ ...config, max: opts.max, ...clientFor(opts.prepare) });
  pool.on('error', opts.onError);
  let listenConfig: pg.ClientConfig = config;
  if (opts.listenUrl) {
    const other = pgConnection(opts.listenUrl);
    listenConfig = { ...config, connectionString: other.url, ssl: other.ssl, application_name: 'pgboss-listen' };
  }
  return {
    async executeSql(text, values) {
      foreignStatement(text, values); // named (prepared.ts), when the pool's client names
      try {
        return await pool.query(text, values);
      } catch (err) {
        if (planOutdated(err)) return pool.query(text, values); // a stale plan: that connection names it afresh
        throw err;
      }
    },
    listen: (channel, onNotification, onReconnect) =>
      listen(listenConfig, channel, onNotification, onReconnect, opts.onError),
    async close() {
      if (!pool.ending) await pool.end();
    },
  };
}

/**
 * pg-boss' LISTEN, as its built-in pool does it: one dedicated client (not a pooled connection), TCP keepalive plus a
 * heartbeat on the same session that checks the channel is still LISTENed, reconnection with capped backoff (once it
 * was up: a first failure goes to the caller, which polls instead), and `onReconnect` after every (re)subscription so
 * pg-boss fetches what was notified while it was down.
 */
async function listen(
  config: pg.ClientConfig,
  channel: string,
  onNotification: (payload: string) => void,
  onReconnect: () => void,
  onError: (err: unknown) => void,
): Promise<ListenHandle> {
  let closed = false;
  let established = false;
  let client: pg.Client | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  let attempt = 0;

  const clearHeartbeat = () => {
    if (heartbeatTimer) clearTimeout(heartbeatTimer);
    heartbeatTimer = null;
  };
  const scheduleReconnect = () => {
    if (closed || reconnectTimer) return;
    const backoff = Math.min(LISTEN_BACKOFF_MAX_MS, 1000 * 2 ** Math.min(attempt, 5));
    attempt++;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect().catch(() => scheduleReconnect());
    }, backoff);
  };
  const disconnect = (target: pg.Client, err: unknown) => {
    if (closed || client !== target) return;
    clearHeartbeat();
    client = null;
    target.removeAllListeners();
    target.end().catch(() => {});
    onError(err);
    if (established) scheduleReconnect();
  };
  const heartbeat = async (target: pg.Client) => {
    if (closed || client !== target) return;
    let timeout: NodeJS.Timeout | undefined;
    const query = target.query<{ listening: boolean }>(
      'select exists (select 1 from pg_listening_channels() as active(channel) where channel = $1) as listening',
      [channel],
    );
    query.catch(() => {});
    try {
      const result = await Promise.race([
        query,
        new Promise<never>((_, reject) => {
          timeout = setTimeout(
            () => reject(new Error('LISTEN/NOTIFY heartbeat timed out')),
            LISTEN_HEARTBEAT_TIMEOUT_MS,
          );
        }),
      ]);
      if (!result.rows[0]?.listening) throw new Error('LISTEN/NOTIFY channel registration was lost');
    } finally {
      clearTimeout(timeout);
    }
    scheduleHeartbeat(target);
  };
  const scheduleHeartbeat = (target: pg.Client) => {
    if (closed || client !== target) return;
    heartbeatTimer = setTimeout(() => {
      heartbeatTimer = null;
      heartbeat(target).catch((err: unknown) => disconnect(target, err));
    }, LISTEN_HEARTBEAT_MS);
  };
  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ ...config, keepAlive: true, keepAliveInitialDelayMillis: LISTEN_KEEP_ALIVE_DELAY_MS });
    next.on('error', (err) => disconnect(next, err));
    next.on('end', () => disconnect(next, new Error('LISTEN/NOTIFY connection ended')));
    next.on('notification', (msg) => {
      if (msg.payload !== undefined) onNotification(msg.payload);
    });
    client = next; // tracked before connecting, so close() ends a connection still being opened
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      next.removeAllListeners();
      await next.end().catch(() => {});
      if (client === next) client = null;
      throw err;
    }
    attempt = 0;
    established = true;
    scheduleHeartbeat(next);
    onReconnect();
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      clearHeartbeat();
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners();
        await c.end().catch(() => {});
      }
    },
  };
}
