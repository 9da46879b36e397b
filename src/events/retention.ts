// Events and delivery logs past EVENT_RETENTION_DAYS deleted in batches, oldest first.
import { ormSql } from '../platform/sql.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../platform/logger.ts';
import { PRUNE_CONNECTIONS, PRUNE_DELIVERIES, PRUNE_EVENTS } from './events.sql.ts';

export const PRUNE_BATCH = 1000;
const PAUSE_MS = 50; // between batches: vacuum, replicas and everyone else keep up

// The smallest UUID v7 of a millisecond: every id generated before it sorts lower.
export const uuidV7Floor = (at: Date): string => {
  const hex = at.getTime().toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
};

/**
 * Deletes delivery logs, then events, older than `days` (and stream connections long dead), in batches of
 * PRUNE_BATCH rows, each its own short statement that skips rows someone else holds: no long lock, no long
 * transaction, whatever the backlog. Returns how many rows went.
 */
export async function pruneEvents(
  em: EntityManager,
  days: number,
  logger: Logger,
): Promise<{ deliveries: number; events: number }> {
  const cutoff = new Date(Date.now() - days * 24 * 3600 * 1000);
  const params = [uuidV7Floor(cutoff), cutoff, PRUNE_BATCH];
  const pruned = { deliveries: 0, events: 0 };
  for (const [key, statement] of [
    ['deliveries', PRUNE_DELIVERIES],
    ['events', PRUNE_EVENTS],
  ] as const) {
    for (;;) {
      const affectedRows = await ormSql(em).run(statement, params);
      pruned[key] += affectedRows;
      if (affectedRows < PRUNE_BATCH) break;
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
  }
  await ormSql(em).run(PRUNE_CONNECTIONS);
  if (pruned.deliveries || pruned.events) logger.info({ ...pruned, days }, 'old events and delivery logs pruned');
  return pruned;
}
