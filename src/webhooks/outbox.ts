// The outbox: an event recorded in the transaction of the change that caused it, with its deliveries and their jobs.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { v7 as uuidv7 } from 'uuid';
import { deliverJob, enqueueMany, QUEUES } from '../platform/queue.ts';
import { ormSql, type SqlTx } from '../platform/sql.ts';
import { isUuid } from '../platform/base.entity.ts';
import { Event, type IEvent } from './event.entity.ts';
import type { EventType } from './catalog.ts';
import { newDeliveryId } from './signing.ts';
import { INSERT_DELIVERIES, SUBSCRIBERS, type EventRow, type SubscriberRow } from './webhooks.sql.ts';

export type NewEvent = { merchantId: string; type: EventType; data: Record<string, unknown> };

// Call inside the transaction of the change that caused the event: the event row, one delivery per subscribed webhook
// and their deliver jobs commit or roll back with it, so an event can neither be lost nor announced for a change that
// did not happen, and the delivery daemon can POST it as soon as the transaction commits (no fan-out hop between).
export async function recordEvent(
  em: EntityManager,
  boss: PgBoss,
  merchantId: string,
  type: EventType,
  data: Record<string, unknown>,
) {
  const [event] = await recordEvents(em, boss, [{ merchantId, type, data }]);
  return event;
}

// Several events of one transaction (a batch of payments) in the same few statements as one.
export async function recordEvents(em: EntityManager, boss: PgBoss, events: NewEvent[]): Promise<IEvent[]> {
  if (events.length === 0) return [];
  if (!em.isInTransaction()) throw new Error('recordEvents must run inside the transaction of the change it reports');
  const created = events.map((e) =>
    em.create(Event, { merchant: e.merchantId, type: e.type, resourceId: resourceIdOf(e.data), data: e.data }),
  );
  await em.flush();
  await createDeliveries(
    ormSql(em),
    boss,
    created.map((e, i) => ({
      id: e.id,
      merchant_id: events[i].merchantId,
      type: e.type,
      data: e.data,
      created_at: e.createdAt,
    })),
  );
  return created;
}

// The resource an event is about: the id in its data (a charge, withdrawal, PIX key or infraction), when it is a UUID.
const resourceIdOf = (data: Record<string, unknown>): string | null =>
  typeof data.id === 'string' && isUuid(data.id) ? data.id : null;

// An event as the API and the stream show it, and as webhooks deliver it: `{ id, event, createdAt, data }`.
export const eventBody = (e: { id: string; type: string; data: unknown; created_at: Date | string }) => ({
  id: e.id,
  event: e.type,
  createdAt: new Date(e.created_at).toISOString(),
  data: e.data,
});

// The delivered body, serialised once per event: every subscriber, retry and replay sends these exact bytes.
export const payloadOf = (e: EventRow): string => JSON.stringify(eventBody(e));

const INSERT_CHUNK = 1000;

/**
 * Creates one delivery per (event, ACTIVE subscribed webhook) and its first deliver job, inside the caller's
 * transaction, so the deliveries of an event exist exactly when the event does, for the webhooks subscribed at that
 * moment. Idempotent: the unique (event_id, webhook_id) key makes a re-run insert nothing and so enqueue nothing.
 */
export async function createDeliveries(sql: SqlTx, boss: PgBoss, events: EventRow[]): Promise<number> {
  if (events.length === 0) return 0;
  const webhooks = await sql.query<SubscriberRow>(SUBSCRIBERS, [[...new Set(events.map((e) => e.merchant_id))]]);
  const byMerchant = Map.groupBy(webhooks, (w) => w.merchant_id);
  const rows = events.flatMap((e) => {
    const subscribers = (byMerchant.get(e.merchant_id) ?? []).filter(
      (w) => w.events.length === 0 || w.events.includes(e.type),
    );
    if (subscribers.length === 0) return [];
    const payload = payloadOf(e);
    return subscribers.map((w) => ({
      merchantId: e.merchant_id,
      id: uuidv7(),
      delivery_id: newDeliveryId(),
      event_id: e.id,
      webhook_id: w.id,
      event_type: e.type,
      url: w.url,
      payload,
    }));
  });
  let created = 0;
  // In chunks, so a batch of events for merchants with many webhooks never builds one huge JSON parameter.
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const inserted = await sql.query<{ id: string }>(INSERT_DELIVERIES, [
      JSON.stringify(chunk.map(({ merchantId: _, ...row }) => row)),
    ]);
    if (inserted.length === 0) continue;
    const merchantOf = new Map(chunk.map((r) => [r.id, r.merchantId]));
    await enqueueMany(
      boss,
      sql.jobs,
      QUEUES.webhookDeliver,
      inserted.map(({ id }) => deliverJob(merchantOf.get(id)!, { id, attempt: 0, step: 0 })),
    );
    created += inserted.length;
  }
  return created;
}
