import { once } from 'node:events';
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createOrm } from '../../src/platform/db.ts';
import { createBoss } from '../../src/platform/queue.ts';
import { announceReady, fatal, onShutdown } from '../../src/platform/lifecycle.ts';
import { createApp } from '../../src/app.ts';

let config;
try { config = loadConfig(); } catch (err) { fatal(undefined, err); }
const logger = createLogger(config.logLevel, 'api');
try {
  const orm = await createOrm(config.databaseUrl, { pool: { min: 0, max: config.dbPoolMax } });
  const boss = await createBoss(config.databaseUrl, logger);
  const server = createApp({ config, orm, boss, logger }).listen(config.port);
  await once(server, 'listening');
  server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
  logger.info({ port: config.port }, 'api listening');
  onShutdown(logger, async () => {
    // stop accepting, let in-flight requests finish, then close pools
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    await closed;
    await boss.stop({ graceful: true, timeout: 20_000 });
    await orm.close();
  });
  announceReady();
} catch (err) {
  fatal(logger, err);
}
