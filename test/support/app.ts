import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
import { errorBodyProblem } from './error-codes.ts';

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
  const app = createApp(deps, { streams, principals });
  const refused: string[] = [];
  const server: Server = createServer((req, res) => {
    watchErrorAnswer(req, res, refused);
    app(req, res);
  }).listen(0, '127.0.0.1');
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
      if (refused.length)
        throw new Error(`error answers without a listed code (src/platform/error-codes.ts):\n${refused.join('\n')}`);
    },
  };
}

/**
 * Every error answer of the test app (status >= 400, JSON), whoever asked it (client.ts, plain fetch, a browser), must
 * carry a code of the catalogue with a message of its family: the offending ones are collected, and close() throws
 * them. It wraps only this test server's responses; the service itself pays nothing for it.
 */
export function watchErrorAnswer(req: IncomingMessage, res: ServerResponse, refused: string[]): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (res.statusCode < 400 || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
  };
  const { write, end } = res;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  res.once('finish', () => {
    // a type given to writeHead alone is not kept for getHeader: then the body tells
    const type = res.getHeader('content-type');
    const text = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'HEAD' || res.statusCode < 400) return;
    if (type === undefined ? !text.startsWith('{') : !/json/i.test(String(type))) return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const problem = errorBodyProblem(res.statusCode, body);
    if (problem) refused.push(`${req.method} ${req.url} ${res.statusCode} ${text}: ${problem}`);
  });
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
