import { once } from 'node:events';
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { announceReady, fatal, onShutdown } from '../../src/platform/lifecycle.ts';
import { buildDeps, closeDeps } from '../../src/deps.ts';
import { createApp } from '../../src/app.ts';

let config;
try { config = loadConfig(); } catch (err) { fatal(undefined, err); }
const logger = createLogger(config.logLevel, 'api');
try {
  const deps = await buildDeps(config, logger);
  const server = createApp(deps).listen(config.port);
  await once(server, 'listening');
  server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
  logger.info({ port: config.port }, 'api listening');
  onShutdown(logger, async () => {
    // stop accepting, let in-flight requests finish, then close pools
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    await closed;
    await closeDeps(deps);
  });
  announceReady();
} catch (err) {
  fatal(logger, err);
}
