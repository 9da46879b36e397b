// The worker process: builds the services and starts the worker's queues and schedules.
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { announceReady, fatal, onShutdown } from '../../src/platform/lifecycle.ts';
import { buildDeps, closeDeps } from '../../src/deps.ts';
import { startWorker as start } from '../../src/worker.ts';

let config;
try {
  config = loadConfig(process.env, 'worker');
} catch (err) {
  fatal(undefined, err);
}
const logger = createLogger(config.logLevel, 'worker');
try {
  const deps = await buildDeps(config, logger, { supervise: true, schedule: true, work: true });
  await start(deps);
  onShutdown(logger, () => closeDeps(deps));
  announceReady(logger);
} catch (err) {
  fatal(logger, err);
}
