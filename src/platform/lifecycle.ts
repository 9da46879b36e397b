// A process' start and stop: ready announced, signals handled, a fatal error logged and exited.
import cluster from 'node:cluster';
import type { Logger } from 'pino';

// SIGINT/SIGTERM run the shutdown once and exit 0; a second signal, or a shutdown past the grace period, forces exit 1.
export function onShutdown(logger: Logger, shutdown: () => Promise<void>, graceMs = 25_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    shutdown().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  // Started by `npm start`: if that supervisor dies, the IPC channel closes and we stop too (also when it closed while
  // we were starting, before anyone listened).
  if (process.send) {
    if (process.connected) process.on('disconnect', () => handler('SIGTERM'));
    else handler('SIGTERM');
  }
}

// Tells a supervising `npm start` (and the logs, for a platform's boot check) that this process is up.
export function announceReady(logger: Logger): void {
  if (!cluster.isWorker) logger.info('ready'); // an API process of a cluster tells its primary, which says it once

  process.send?.('ready');
}

// A process that cannot start says why in one line and exits non-zero.
export function fatal(logger: Logger | undefined, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  if (logger) logger.fatal({ err }, message);
  else console.error(`fatal: ${message}`);
  process.exit(1);
}
