import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { announceReady, fatal, onShutdown } from '../../src/platform/lifecycle.ts';
import { buildDeps, closeDeps } from '../../src/deps.ts';
import { startDeliveryDaemon as start } from '../../src/webhooks/daemon.ts';

let config;
try { config = loadConfig(); } catch (err) { fatal(undefined, err); }
const logger = createLogger(config.logLevel, 'webhooks');
try {
  const deps = await buildDeps(config, logger, {});
  await start(deps);
  onShutdown(logger, () => closeDeps(deps));
  announceReady();
} catch (err) {
  fatal(logger, err);
}
