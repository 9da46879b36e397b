import type { Deps } from '../deps.ts';
import { QUEUES } from '../platform/queue.ts';
import type { FanoutJob } from '../events/events.service.ts';
import { fanOut, type DeliverJob } from './fanout.ts';
import { deliverBatch, type DeliverContext } from './deliver.ts';
import { createSender } from './sender.ts';

// Retries due within this many seconds get an in-process wake-up; later ones are found by the backstop poll.
const WAKE_WITHIN_SECONDS = 15 * 60;
// A few independent fetch loops, so one receiver that hangs until the timeout holds back one batch, not the process.
const MAX_LOOPS = 4;

/**
 * The webhook delivery daemon (apps/webhooks). New jobs wake it through LISTEN/NOTIFY within milliseconds of their
 * commit; polling is only the backstop. Future-dated retries send no NOTIFY, hence the wake-up timers.
 */
export async function startDeliveryDaemon(deps: Deps): Promise<void> {
  const { boss, orm, config, logger } = deps;
  const sender = createSender({ production: config.production, timeoutMs: config.webhookTimeoutMs });
  boss.once('stopped', () => sender.close());

  const loops = Math.min(MAX_LOOPS, config.webhookConcurrency);
  const batchSize = Math.ceil(config.webhookConcurrency / loops);
  let deliverWorkerId = '';
  const ctx: DeliverContext = {
    em: () => orm.em.fork(),
    boss,
    sender,
    retryScale: config.webhookRetryScale,
    logger,
    wakeAfter: (seconds) => {
      if (seconds > WAKE_WITHIN_SECONDS) return;
      setTimeout(() => boss.notifyWorker(deliverWorkerId), Math.ceil(seconds * 1000) + 5).unref();
    },
  };

  await boss.work<FanoutJob>(QUEUES.webhookFanout,
    { batchSize: 50, burstWhenBatchFull: true, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 30 },
    async (jobs) => {
      const created = await fanOut(orm.em.fork(), boss, jobs.map((j) => j.data.eventId));
      logger.debug({ events: jobs.length, deliveries: created }, 'events fanned out');
    });

  deliverWorkerId = await boss.work<DeliverJob>(QUEUES.webhookDeliver,
    { batchSize, localConcurrency: loops, burstWhenBatchFull: true, perJobResults: true, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 5 },
    (jobs) => deliverBatch(ctx, jobs));

  logger.info({ concurrency: loops * batchSize, loops, batchSize, timeoutMs: config.webhookTimeoutMs, retryScale: config.webhookRetryScale }, 'webhook daemon ready');
}
