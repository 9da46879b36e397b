// The events listing and retention (run through MikroORM: `?` parameters), on the events table (written by
// src/webhooks/outbox.ts) and, for retention, webhook_deliveries and event_stream_connections. The stream's own
// statements, on node-postgres, are in stream.sql.ts.
import type { PageSpec } from '../platform/counters.ts';

// An events row read with plain SQL.
export type EventRow = { id: string; type: string; data: Record<string, unknown>; created_at: Date | string };

// The listing (countedPage), filtered by merchant and optionally type: total from event_counts, page from
// events_merchant_created_idx or events_merchant_type_created_idx.
export const EVENT_PAGE: PageSpec = {
  table: 'events',
  alias: 'e',
  counter: { table: 'event_counts', keys: 'merchant_id, type' },
  columns: 'e.id, e.type, e.data, e.created_at',
};

// The events of one resource (a handful): counted and paged from events_resource_idx, the merchant rechecked on each
// row. Parameters: merchant, resource id[, type], twice; then limit and offset.
export const RESOURCE_PAGE = (withType: boolean) => {
  const cond = `merchant_id = ? and resource_id = ?${withType ? ' and type = ?' : ''}`;
  return `
  select n.total, e.id, e.type, e.data, e.created_at
    from (select count(*) as total from events where ${cond}) n
    left join lateral (
           select id, type, data, created_at
             from events
            where ${cond}
            order by created_at desc, id desc
            limit ? offset ?
         ) e on true
   order by e.created_at desc, e.id desc`;
};

// One event of a merchant (another merchant's is not found).
export const EVENT_BY_ID = `
  select id, type, data, created_at
    from events
   where id = ? and merchant_id = ?`;

// Retention. `?` below: the cutoff as the smallest UUID v7 of its millisecond (ids are UUID v7, time-ordered, so the
// primary key finds the oldest rows without an index on created_at), the cutoff time (rechecked on the row), the batch
// size. Rows another transaction holds are skipped and left for the next run: no batch waits on a lock.

// Delivery logs past the window; one still PENDING (attempts remain) is kept until it ends.
export const PRUNE_DELIVERIES = `
  with doomed as (
    select id
      from webhook_deliveries
     where id < ?::uuid and created_at < ? and status <> 'PENDING'
     order by id
     limit ?
       for update skip locked
  )
  delete from webhook_deliveries d
   using doomed
   where d.id = doomed.id`;

// Events past the window that no delivery log refers to any more; their stream position and counter go with them
// (cascade, and the events count trigger).
export const PRUNE_EVENTS = `
  with doomed as (
    select e.id
      from events e
     where e.id < ?::uuid and e.created_at < ?
       and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
     order by e.id
     limit ?
       for update of e skip locked
  )
  delete from events e
   using doomed
   where e.id = doomed.id`;

// Stream connections of API processes that died without closing them (no heartbeat for long).
export const PRUNE_CONNECTIONS = `
  delete from event_stream_connections
   where seen_at < now() - interval '1 hour'`;
