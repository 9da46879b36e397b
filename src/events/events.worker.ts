import type { Services } from '../platform/services.ts';
import { QUEUES, WORK_POLLING } from '../platform/queue.ts';
import { pruneEvents } from './retention.ts';

const EVERY_TEN_MINUTES = '*/10 * * * *';

// The worker's event duty: prune events and delivery logs past EVENT_RETENTION_DAYS (0: keep them forever).
export async function registerEvents({ orm, boss, config, logger }: Services): Promise<void> {
  const log = logger.child({ module: 'events' });
  if (config.eventRetentionDays === 0) {
    await boss.unschedule(QUEUES.eventsPrune);
    return;
  }
  await boss.work(QUEUES.eventsPrune, WORK_POLLING, async () => {
    await pruneEvents(orm.em.fork(), config.eventRetentionDays, log);
  });
  await boss.schedule(QUEUES.eventsPrune, EVERY_TEN_MINUTES);
}
