// The events listing and retention (declared `$n` statements: src/platform/sql.ts), on the events table (written by
// src/webhooks/outbox.ts) and, for retention, webhook_deliveries and event_stream_connections. The stream's own
// statements, on node-postgres, are in stream.sql.ts.
import type { PageSpec } from '../platform/counters.ts';
import { statement } from '../platform/sql.ts';

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
// row. Parameters: merchant, resource id[, type]; then limit and offset.
const resourcePage = (withType: boolean) => {
  const cond = `merchant_id = $1 and resource_id = $2${withType ? ' and type = $3' : ''}`;
  const n = withType ? 4 : 3;
  return statement(
    `events.resource_page${withType ? '_of_type' : ''}`,
    `
  select n.total, e.id, e.type, e.data, e.created_at
    from (select count(*) as total from events where ${cond}) n
    left join lateral (
           select id, type, data, created_at
             from events
            where ${cond}
            order by created_at desc, id desc
            limit $${n} offset $${n + 1}
         ) e on true
   order by e.created_at desc, e.id desc`,
  );
};
export const RESOURCE_PAGE = { all: resourcePage(false), ofType: resourcePage(true) };

// One event of a merchant (another merchant's is not found).
export const EVENT_BY_ID = statement(
  'events.event_by_id',
  `
  select id, type, data, created_at
    from events
   where id = $1 and merchant_id = $2`,
);

// Retention. Parameters: the cutoff as the smallest UUID v7 of its millisecond (ids are UUID v7, time-ordered, so the
// primary key finds the oldest rows without an index on created_at), the cutoff time (rechecked on the row), the batch
// size. Rows another transaction holds are skipped and left for the next run: no batch waits on a lock.

// Delivery logs past the window; one still PENDING (attempts remain) is kept until it ends.
export const PRUNE_DELIVERIES = statement(
  'events.prune_deliveries',
  `
  with doomed as (
    select id
      from webhook_deliveries
     where id < $1::uuid and created_at < $2 and status <> 'PENDING'
     order by id
     limit $3
       for update skip locked
  )
  delete from webhook_deliveries d
   using doomed
   where d.id = doomed.id`,
);

// Events past the window that no delivery log refers to any more; their stream position and counter go with them
// (cascade, and the events count trigger).
export const PRUNE_EVENTS = statement(
  'events.prune_events',
  `
  with doomed as (
    select e.id
      from events e
     where e.id < $1::uuid and e.created_at < $2
       and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
     order by e.id
     limit $3
       for update of e skip locked
  )
  delete from events e
   using doomed
   where e.id = doomed.id`,
);

// Stream connections of API processes that died without closing them (no heartbeat for long).
export const PRUNE_CONNECTIONS = statement(
  'events.prune_connections',
  `
  delete from event_stream_connections
   where seen_at < now() - interval '1 hour'`,
);
