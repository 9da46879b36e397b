import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig, type Config } from '../../src/platform/config.ts';
import { createLogger, type Logger } from '../../src/platform/logger.ts';
import type { MikroORM } from '../../src/platform/db.ts';
import type { PgBoss } from '../../src/platform/queue.ts';
import { createApp } from '../../src/app.ts';
import { buildDeps, closeDeps, type Deps } from '../../src/deps.ts';
import { startWorker } from '../../src/worker.ts';
import { startDeliveryDaemon } from '../../src/webhooks/daemon.ts';
import { createTestDatabase } from './db.ts';
import { createEventStreams, type EventStreams } from '../../src/events/streams.ts';
import { createListener, type Listener } from '../../src/platform/listener.ts';
import { createPrincipalCache, type PrincipalCache } from '../../src/auth/principal-cache.ts';

export type TestApp = {
  baseUrl: string;
  databaseUrl: string;
  config: Config;
  orm: MikroORM;
  boss: PgBoss;
  deps: Deps;
  streams: EventStreams;
  principals: PrincipalCache;
  listener: Listener;
  close: () => Promise<void>;
};

// The real API listening on an ephemeral port, over its own freshly migrated database (or another app's, as a second
// process of one deployment would be).
export async function startTestApp(
  env: Record<string, string> = {},
  // clock: what "now" is for the API's date rules (a due date's "today"); the wall clock by default. listenUrl: where
  // the process' LISTEN connection goes, when not to its database directly (through a relay a test can cut)
  opts: { logger?: Logger; databaseUrl?: string; clock?: () => Date; listenUrl?: string } = {},
): Promise<TestApp> {
  const databaseUrl = opts.databaseUrl ?? (await createTestDatabase());
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
    // Tests change merchants and keys in the database and ask the API at once: every request reads its credential,
    // unless the test sets this (test/auth.cache.test.ts: the cache, and how it learns of changes).
    PRINCIPAL_CACHE_MS: '0',
    ...env,
  });
  const logger = opts.logger ?? createLogger(config.logLevel, 'test-api');
  const deps = await buildDeps(config, logger, {}, opts.clock);
  const { orm, boss } = deps;
  const listener = createListener(
    opts.listenUrl ? { ...config, databaseUrl: opts.listenUrl } : config,
    logger,
    'test-api-listen',
  );
  const streams = createEventStreams({ ...deps, listener });
  const principals = createPrincipalCache(listener, config.principalCacheMs);
  const server: Server = createApp(deps, { streams, principals }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    databaseUrl,
    config,
    orm,
    boss,
    deps,
    streams,
    principals,
    listener,
    async close() {
      await streams.close();
      await listener.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await boss.stop({ graceful: false });
      await orm.close();
    },
  };
}

// Runs the worker or the webhook daemon beside a test app, each with its own pools and pg-boss instance,
// as a separate dyno would. Returns its stop function.
export async function startBackground(
  app: TestApp,
  kind: 'worker' | 'webhooks',
  env: Record<string, string> = {},
): Promise<() => Promise<void>> {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: app.databaseUrl,
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
    ...env,
  });
  const deps = await buildDeps(
    config,
    createLogger(config.logLevel, `test-${kind}`),
    kind === 'worker' ? { supervise: true, schedule: true, work: true } : {},
  );
  if (kind === 'worker') {
    await startWorker(deps);
    return () => closeDeps(deps);
  }
  const stop = await startDeliveryDaemon(deps);
  return async () => {
    await stop();
    await closeDeps(deps);
  };
}
