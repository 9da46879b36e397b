import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss } from 'pg-boss';
import { Event } from './event.entity.ts';
import type { EventType } from './catalog.ts';
import { createDeliveries } from '../webhooks/fanout.ts';
import type { Query } from '../webhooks/daemon-db.ts';

// Call inside the transaction of the change that caused the event: the event row, one delivery per subscribed webhook
// and their deliver jobs commit or roll back with it, so an event can neither be lost nor announced for a change that
// did not happen, and the delivery daemon can POST it as soon as the transaction commits (no fan-out hop between).
export async function recordEvent(em: EntityManager, boss: PgBoss, merchantId: string, type: EventType, data: Record<string, unknown>) {
  const event = em.create(Event, { merchant: merchantId, type, data });
  await em.flush();
  const tx = fromKysely(em.getKysely());
  await createDeliveries(tx.executeSql as Query, tx, boss, [{ id: event.id, merchant_id: merchantId, type, data, created_at: event.createdAt }]);
  return event;
}
