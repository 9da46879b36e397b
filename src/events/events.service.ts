import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { QUEUES, sendInTx } from '../platform/queue.ts';
import { Event } from './event.entity.ts';
import type { EventType } from './catalog.ts';

export type FanoutJob = { eventId: string };

// Call inside the transaction of the change that caused the event: the event row and its fan-out job
// commit or roll back with it, so an event can neither be lost nor announced for a change that did not happen.
export async function recordEvent(em: EntityManager, boss: PgBoss, merchantId: string, type: EventType, data: Record<string, unknown>) {
  const event = em.create(Event, { merchant: merchantId, type, data });
  await sendInTx(em, boss, QUEUES.webhookFanout, { eventId: event.id } satisfies FanoutJob);
  return event;
}
