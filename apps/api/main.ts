// The API process: its config, pools, LISTEN connection and HTTP server, started and stopped in order.
import { once } from 'node:events';
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { announceReady, fatal, onShutdown } from '../../src/platform/lifecycle.ts';
import { cluster, runClusterPrimary } from '../../src/platform/cluster.ts';
import { buildDeps, closeDeps } from '../../src/deps.ts';
import { createApp } from '../../src/app.ts';
import { inflightTracker } from '../../src/platform/inflight.ts';
import { createEventStreams } from '../../src/events/streams.ts';
import { createListener } from '../../src/platform/listener.ts';
import { createPrincipalCache } from '../../src/auth/principal-cache.ts';

let config;
try {
  config = loadConfig(process.env, 'api');
} catch (err) {
  fatal(undefined, err);
}
const logger = createLogger(config.logLevel, 'api');
if (config.trustProxyWarning && cluster.isPrimary) logger.warn(config.trustProxyWarning);
if (config.webConcurrency > 1 && cluster.isPrimary) {
  runClusterPrimary(config.webConcurrency, logger);
} else {
  try {
    const deps = await buildDeps(config, logger);
    const inflight = inflightTracker();
    const listener = createListener(config, logger, 'api-listen'); // one LISTEN connection for the two below
    const streams = createEventStreams({ ...deps, listener });
    const principals = createPrincipalCache(listener, config.principalCacheMs);
    const server = createApp(deps, { streams, principals, inflight }).listen(config.port);
    await once(server, 'listening');
    server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
    logger.info({ port: config.port }, 'api listening');
    onShutdown(logger, async () => {
      // stop accepting, end the event streams (their clients resume elsewhere), let in-flight requests finish, then
      // close pools
      const closed = new Promise((resolve) => server.close(resolve));
      await streams.close();
      await listener.close();
      server.closeIdleConnections();
      await closed;
      await inflight.drained(15_000); // handlers of clients that hung up are still using the pools
      await closeDeps(deps);
    });
    announceReady(logger);
  } catch (err) {
    fatal(logger, err);
  }
}
