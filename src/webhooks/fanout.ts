import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss } from 'pg-boss';
import { QUEUES } from '../platform/queue.ts';
import { newId } from '../platform/base.entity.ts';
import { newDeliveryId } from './signing.ts';

// One attempt of one delivery. `attempt` is the attempts count the row must still have (a stale or duplicated job
// finds it moved on and does nothing); `step` is the position in the retry schedule of this run (a replay restarts it).
export type DeliverJob = { id: string; attempt: number; step: number };

type EventRow = { id: string; merchant_id: string; type: string; data: unknown; created_at: Date };
type WebhookRow = { id: string; merchant_id: string; url: string; events: string[] };

// The delivered body, serialised once per event: every subscriber, retry and replay sends these exact bytes.
export const payloadOf = (e: EventRow): string =>
  JSON.stringify({ id: e.id, event: e.type, createdAt: new Date(e.created_at).toISOString(), data: e.data });

/**
 * Creates one delivery per (event, ACTIVE subscribed webhook) and its first deliver job, in one transaction.
 * Idempotent: the unique (event_id, webhook_id) key makes a re-run insert nothing and so enqueue nothing.
 */
export async function fanOut(em: EntityManager, boss: PgBoss, eventIds: string[]): Promise<number> {
  return em.transactional(async (tx) => {
    const events = await tx.execute<EventRow[]>('select id, merchant_id, type, data, created_at from events where id in (?)', [eventIds]);
    if (events.length === 0) return 0;
    const webhooks = await tx.execute<WebhookRow[]>(
      `select id, merchant_id, url, events from webhooks where merchant_id in (?) and status = 'ACTIVE' and deleted_at is null`,
      [[...new Set(events.map((e) => e.merchant_id))]],
    );
    const rows = events.flatMap((e) => {
      const subscribers = webhooks.filter((w) => w.merchant_id === e.merchant_id && (w.events.length === 0 || w.events.includes(e.type)));
      if (subscribers.length === 0) return [];
      const payload = payloadOf(e);
      return subscribers.map((w) => ({ id: newId(), delivery_id: newDeliveryId(), event_id: e.id, webhook_id: w.id, event_type: e.type, url: w.url, payload }));
    });
    if (rows.length === 0) return 0;
    const inserted = await tx.execute<{ id: string }[]>(
      `insert into webhook_deliveries (id, created_at, updated_at, delivery_id, event_id, webhook_id, event_type, url, payload, status, attempts, success, next_attempt_at)
       select r.id, now(), now(), r.delivery_id, r.event_id, r.webhook_id, r.event_type, r.url, r.payload, 'PENDING', 0, false, now()
       from jsonb_to_recordset(?::jsonb) as r(id uuid, delivery_id text, event_id uuid, webhook_id uuid, event_type text, url text, payload text)
       on conflict (event_id, webhook_id) do nothing
       returning id`,
      [JSON.stringify(rows)],
    );
    if (inserted.length > 0) {
      const jobs = inserted.map(({ id }) => ({ data: { id, attempt: 0, step: 0 } satisfies DeliverJob }));
      await boss.insert(QUEUES.webhookDeliver, jobs, { db: fromKysely(tx.getKysely()) });
    }
    return inserted.length;
  });
}
