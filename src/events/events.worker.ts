// The worker's event queue: prune events and delivery logs past the retention window.
import type { Services } from '../platform/services.ts';
import { QUEUES, every } from '../platform/queue.ts';
import { pruneEvents } from './retention.ts';

const EVERY_TEN_MINUTES = '*/10 * * * *';

// The worker's event duty: prune events and delivery logs past EVENT_RETENTION_DAYS (0: keep them forever).
export async function registerEvents({ orm, boss, config, logger }: Services): Promise<void> {
  const log = logger.child({ module: 'events' });
  if (config.eventRetentionDays === 0) {
    await boss.unschedule(QUEUES.eventsPrune);
    return;
  }
  await every(boss, QUEUES.eventsPrune, EVERY_TEN_MINUTES, async () => {
    await pruneEvents(orm.em.fork(), config.eventRetentionDays, log);
  });
}
