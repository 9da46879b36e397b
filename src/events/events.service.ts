import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss } from 'pg-boss';
import { Event, type IEvent } from './event.entity.ts';
import type { EventType } from './catalog.ts';
import { createDeliveries } from '../webhooks/fanout.ts';
import type { Query } from '../webhooks/daemon-db.ts';

export type NewEvent = { merchantId: string; type: EventType; data: Record<string, unknown> };

// Call inside the transaction of the change that caused the event: the event row, one delivery per subscribed webhook
// and their deliver jobs commit or roll back with it, so an event can neither be lost nor announced for a change that
// did not happen, and the delivery daemon can POST it as soon as the transaction commits (no fan-out hop between).
export async function recordEvent(em: EntityManager, boss: PgBoss, merchantId: string, type: EventType, data: Record<string, unknown>) {
  const [event] = await recordEvents(em, boss, [{ merchantId, type, data }]);
  return event;
}

// Several events of one transaction (a batch of payments) in the same few statements as one.
export async function recordEvents(em: EntityManager, boss: PgBoss, events: NewEvent[]): Promise<IEvent[]> {
  if (events.length === 0) return [];
  if (!em.isInTransaction()) throw new Error('recordEvents must run inside the transaction of the change it reports');
  const created = events.map((e) => em.create(Event, { merchant: e.merchantId, type: e.type, data: e.data }));
  await em.flush();
  const tx = fromKysely(em.getKysely());
  await createDeliveries(tx.executeSql as Query, tx, boss,
    created.map((e, i) => ({ id: e.id, merchant_id: events[i].merchantId, type: e.type, data: e.data, created_at: e.createdAt })));
  return created;
}
