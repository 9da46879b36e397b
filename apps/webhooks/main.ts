// The webhook delivery daemon's process: pg-boss and its own pg pool, no ORM.
import { loadConfig } from '../../src/platform/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { announceReady, fatal, onShutdown } from '../../src/platform/lifecycle.ts';
import { createBoss } from '../../src/platform/queue.ts';
import { canPrepare } from '../../src/platform/prepared.ts';
import { startDeliveryDaemon as start } from '../../src/webhooks/daemon.ts';

// Only what delivery needs: pg-boss and the daemon's own pool, not buildDeps' ORM, entities and acquirer (memory).
let config;
try {
  config = loadConfig(process.env, 'webhooks');
} catch (err) {
  fatal(undefined, err);
}
const logger = createLogger(config.logLevel, 'webhooks');
try {
  // supervising too: the jobs of a worker or daemon that died are retried within seconds while this one runs; the
  // daemon LISTENs on its own connection (daemon.ts), so pg-boss does not
  const boss = await createBoss(config.databaseUrl, logger, { supervise: true, prepare: canPrepare(config) });
  // before the daemon starts: a SIGTERM that comes while it does still stops it gracefully
  const daemon: { stop?: () => Promise<void> } = {};
  onShutdown(logger, async () => {
    await daemon.stop?.();
    await boss.stop({ graceful: true, timeout: 20_000 });
  });
  daemon.stop = await start({ config, boss, logger });
  announceReady(logger);
} catch (err) {
  fatal(logger, err);
}
