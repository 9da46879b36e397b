// WEB_CONCURRENCY: several API processes sharing the port (node:cluster).
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { announceReady } from './lifecycle.ts';

// WEB_CONCURRENCY > 1: a primary forks that many API processes sharing the port (node:cluster) and stops them on
// SIGTERM/SIGINT. A worker that dies unexpectedly is replaced; the primary reports ready once all are listening.
export function runClusterPrimary(count: number, logger: Logger): void {
  let stopping = false;
  let ready = 0;
  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (msg) => {
      if (msg === 'ready' && ++ready === count) announceReady(logger);
    });
  };
  for (let i = 0; i < count; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ pid: worker.process.pid, code, signal }, 'api process died: replacing it');
    ready--;
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping api processes');
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    let codes = 0;
    cluster.on('exit', (_w, code) => {
      codes |= code ?? 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(codes ? 1 : 0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (process.send) process.on('disconnect', () => stop('SIGTERM'));
}

export { cluster };
