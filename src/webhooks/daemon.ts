import type { PgBoss } from 'pg-boss';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { QUEUES, RECOVERY_POLL_SECONDS, work } from '../platform/queue.ts';
import { createPgPool } from '../platform/pg.ts';
import { canPrepare } from '../platform/prepared.ts';
import { processMetrics } from '../platform/metrics.ts';
import { deliveryOutcomes } from './webhooks.metrics.ts';
import { deliverBatch, type DeliverContext } from './deliver.ts';
import { createSender } from './sender.ts';
import { signingKeyCache } from './signing-keys.ts';

// Retries due within this many seconds get an in-process wake-up; later ones are found by the backstop poll.
const WAKE_WITHIN_SECONDS = 15 * 60;
// A few independent fetch loops, so one receiver that hangs until the timeout holds back one batch, not the process.
const MAX_LOOPS = 4;

export type DaemonDeps = { config: Config; boss: PgBoss; logger: Logger };

/**
 * The webhook delivery daemon (apps/webhooks). New jobs wake it through LISTEN/NOTIFY within milliseconds of their
 * commit; polling is only the backstop. Future-dated retries send no NOTIFY, hence the wake-up timers.
 */
export async function startDeliveryDaemon({ boss, config, logger }: DaemonDeps): Promise<void> {
  const db = createPgPool(config.databaseUrl, config.dbPoolMax, logger, 'webhooks', canPrepare(config));
  const loops = Math.min(MAX_LOOPS, config.webhookConcurrency);
  const batchSize = Math.ceil(config.webhookConcurrency / loops);
  const sender = createSender({
    production: config.publicWebhooksOnly,
    timeoutMs: config.webhookTimeoutMs,
    maxSockets: loops * batchSize,
  });
  const registry = await processMetrics(config, boss, logger);
  boss.once('stopped', () => {
    sender.close();
    db.close().catch((err: unknown) => logger.warn({ err }, 'closing the daemon pool failed'));
  });

  let deliverWorkerId = '';
  const wakes = new Set<number>(); // wake-up instants already scheduled, to 10 ms, so a failing batch sets one timer
  const ctx: DeliverContext = {
    db,
    boss,
    sender,
    signingKeys: signingKeyCache(config.secrets),
    retryScale: config.webhookRetryScale,
    disable: {
      minFailures: config.webhookDisableMinFailures,
      afterSeconds: config.webhookDisableAfterHours * 3600 * config.webhookRetryScale,
    },
    logger,
    count: registry ? deliveryOutcomes(registry) : undefined,
    wakeAfter: (seconds) => {
      if (seconds > WAKE_WITHIN_SECONDS) return;
      const at = Math.ceil((Date.now() + seconds * 1000) / 10) * 10 + 5;
      if (wakes.has(at)) return;
      wakes.add(at);
      setTimeout(() => {
        wakes.delete(at);
        boss.notifyWorker(deliverWorkerId);
      }, at - Date.now()).unref();
    },
  };

  deliverWorkerId = await work(
    boss,
    QUEUES.webhookDeliver,
    {
      batchSize,
      localConcurrency: loops,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 1,
      notifyPollingIntervalSeconds: RECOVERY_POLL_SECONDS,
    },
    (jobs) => deliverBatch(ctx, jobs),
  );

  logger.info(
    {
      concurrency: loops * batchSize,
      loops,
      batchSize,
      timeoutMs: config.webhookTimeoutMs,
      retryScale: config.webhookRetryScale,
    },
    'webhook daemon ready',
  );
}
