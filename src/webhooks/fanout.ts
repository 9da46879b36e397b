import type { Db, PgBoss } from 'pg-boss';
import { v7 as uuidv7 } from 'uuid';
import { QUEUES } from '../platform/queue.ts';
import type { DaemonDb, Query } from './daemon-db.ts';
import { newDeliveryId } from './signing.ts';

// One attempt of one delivery. `attempt` is the attempts count the row must still have (a stale or duplicated job
// finds it moved on and does nothing); `step` is the position in the retry schedule of this run (a replay restarts it).
export type DeliverJob = { id: string; attempt: number; step: number };

export type EventRow = { id: string; merchant_id: string; type: string; data: unknown; created_at: Date };
type WebhookRow = { id: string; merchant_id: string; url: string; events: string[] };

// The delivered body, serialised once per event: every subscriber, retry and replay sends these exact bytes.
export const payloadOf = (e: EventRow): string =>
  JSON.stringify({ id: e.id, event: e.type, createdAt: new Date(e.created_at).toISOString(), data: e.data });

const INSERT_CHUNK = 1000;
const INSERT_DELIVERIES = `insert into webhook_deliveries (id, created_at, updated_at, delivery_id, event_id, webhook_id, event_type, url, payload, status, attempts, success, next_attempt_at)
  select r.id, now(), now(), r.delivery_id, r.event_id, r.webhook_id, r.event_type, r.url, r.payload, 'PENDING', 0, false, now()
  from jsonb_to_recordset($1::jsonb) as r(id uuid, delivery_id text, event_id uuid, webhook_id uuid, event_type text, url text, payload text)
  on conflict (event_id, webhook_id) do nothing
  returning id`;

/**
 * Creates one delivery per (event, ACTIVE subscribed webhook) and its first deliver job, inside the caller's
 * transaction: recordEvent calls it in the transaction of the business change, so the deliveries of an event exist
 * exactly when the event does, for the webhooks subscribed at that moment. Idempotent: the unique (event_id,
 * webhook_id) key makes a re-run insert nothing and so enqueue nothing.
 */
export async function createDeliveries(query: Query, jobs: Db, boss: PgBoss, events: EventRow[]): Promise<number> {
  if (events.length === 0) return 0;
  const { rows: webhooks } = await query<WebhookRow>(
    `select id, merchant_id, url, events from webhooks where merchant_id = any($1::uuid[]) and status = 'ACTIVE' and deleted_at is null`,
    [[...new Set(events.map((e) => e.merchant_id))]],
  );
  const byMerchant = new Map<string, WebhookRow[]>();
  for (const w of webhooks) {
    if (!byMerchant.has(w.merchant_id)) byMerchant.set(w.merchant_id, []);
    byMerchant.get(w.merchant_id)!.push(w);
  }
  const rows = events.flatMap((e) => {
    const subscribers = (byMerchant.get(e.merchant_id) ?? []).filter((w) => w.events.length === 0 || w.events.includes(e.type));
    if (subscribers.length === 0) return [];
    const payload = payloadOf(e);
    return subscribers.map((w) => ({ id: uuidv7(), delivery_id: newDeliveryId(), event_id: e.id, webhook_id: w.id, event_type: e.type, url: w.url, payload }));
  });
  let created = 0;
  // In chunks, so a batch of events for merchants with many webhooks never builds one huge JSON parameter.
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const { rows: inserted } = await query<{ id: string }>(INSERT_DELIVERIES, [JSON.stringify(rows.slice(i, i + INSERT_CHUNK))]);
    if (inserted.length === 0) continue;
    await boss.insert(QUEUES.webhookDeliver, inserted.map(({ id }) => ({ data: { id, attempt: 0, step: 0 } satisfies DeliverJob })), { db: jobs });
    created += inserted.length;
  }
  return created;
}

// The deliveries of events already stored, by id, in one transaction of the daemon's pool (bulk loads, tests).
export async function fanOut(db: DaemonDb, boss: PgBoss, eventIds: string[]): Promise<number> {
  return db.transaction(async (query, jobs) => {
    const { rows: events } = await query<EventRow>('select id, merchant_id, type, data, created_at from events where id = any($1::uuid[])', [eventIds]);
    return createDeliveries(query, jobs, boss, events);
  });
}
