// A process' LISTEN connection, shared by what it wakes, reconnected with backoff.
import pg from 'pg';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { pgConnection } from './pg-ssl.ts';
import { listenUrlOf } from './queue.ts';

const BACKOFF_MS = 1000;
const RECONNECT_MAX_MS = 30_000;

/**
 * One LISTEN connection of a process, shared by what it wakes (an API process: its event streams and its credential
 * cache). Reconnected with backoff; `onState` hears it go down and come back up, because whoever relies on its
 * notifications must stop relying on them while it is down (a notification sent then is lost) and catch up once it is
 * up again. Behind a transaction pooler with no direct URL there is nowhere to LISTEN: it never comes up.
 */
export type Listener = {
  // Calls `handle` for each notification on `channel` (LISTENed now if connected, and on every reconnection).
  on: (channel: string, handle: (payload: string) => void) => void;
  onState: (handle: (up: boolean) => void) => void;
  readonly up: boolean;
  close: () => Promise<void>;
};

export function createListener(
  config: Pick<Config, 'databaseUrl' | 'databasePoolMode' | 'databaseDirectUrl'>,
  logger: Logger,
  name: string,
): Listener {
  const listenUrl = listenUrlOf(config);
  const handlers = new Map<string, ((payload: string) => void)[]>();
  const stateHandlers: ((up: boolean) => void)[] = [];
  let client: pg.Client | null = null;
  let up = false;
  let closed = false;
  let backoff = BACKOFF_MS;
  let reconnectTimer: NodeJS.Timeout | undefined;
  const setUp = (value: boolean) => {
    if (up === value) return;
    up = value;
    for (const h of stateHandlers) h(value);
  };

  const connect = async () => {
    if (!listenUrl || closed) return;
    const { url, ssl } = pgConnection(listenUrl);
    const c = new pg.Client({ connectionString: url, ssl, application_name: name });
    client = c;
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = null;
      setUp(false);
      c.end().catch(() => {});
      if (closed) return;
      if (err) logger.warn({ err }, `${name}: LISTEN connection lost; reconnecting`);
      reconnectTimer = setTimeout(() => void connect(), backoff);
      backoff = Math.min(backoff * 2, RECONNECT_MAX_MS);
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (n) => handlers.get(n.channel)?.forEach((h) => h(n.payload ?? '')));
    try {
      await c.connect();
      for (const channel of handlers.keys()) await c.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (client !== c) return;
      backoff = BACKOFF_MS;
      setUp(true);
    } catch (err) {
      lost(err as Error);
    }
  };
  void connect();

  return {
    on(channel, handle) {
      const list = handlers.get(channel);
      if (list) return void list.push(handle);
      handlers.set(channel, [handle]);
      // a channel added while connected: LISTEN now; until that is done, a down/up cycle makes sure nothing is missed
      const c = client;
      if (c && up) {
        setUp(false);
        c.query(`listen ${pg.escapeIdentifier(channel)}`).then(
          () => client === c && setUp(true),
          (err: unknown) => c.emit('error', err),
        );
      }
    },
    onState: (handle) => void stateHandlers.push(handle),
    get up() {
      return up;
    },
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      const c = client;
      client = null;
      setUp(false);
      await c?.end().catch(() => {});
    },
  };
}
