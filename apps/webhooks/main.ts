import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createOrm } from '../../src/platform/db.ts';
import { createBoss } from '../../src/platform/queue.ts';
import { announceReady, fatal, onShutdown } from '../../src/platform/lifecycle.ts';
import { startDeliveryDaemon as start } from '../../src/webhooks/daemon.ts';

let config;
try { config = loadConfig(); } catch (err) { fatal(undefined, err); }
const logger = createLogger(config.logLevel, 'webhooks');
try {
  const orm = await createOrm(config.databaseUrl, { pool: { min: 0, max: config.dbPoolMax } });
  const boss = await createBoss(config.databaseUrl, logger, {});
  await start({ config, orm, boss, logger });
  onShutdown(logger, async () => {
    // stop fetching, let in-flight jobs finish (pg-boss waits for them), then close pools
    await boss.stop({ graceful: true, timeout: 20_000 });
    await orm.close();
  });
  announceReady();
} catch (err) {
  fatal(logger, err);
}
