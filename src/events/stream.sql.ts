// The live stream's statements (declared `$n` statements: they run on the stream's own pool, src/platform/pg.ts)
// on event_stream, event_stream_pending and event_stream_connections, reading events for the bodies, and the stream's
// credential through auth's own statement for it (PRINCIPAL_OF, auth.service.ts).
import { PRINCIPAL_OF, type PrincipalRow } from '../auth/auth.service.ts';
import { statement } from '../platform/sql.ts';

// The sequencer's lock: one transaction at a time in the whole deployment gives positions (sequencer.ts says why).
export const TRY_SEQUENCER_LOCK = statement(
  'events.try_sequencer_lock',
  `
  select pg_try_advisory_xact_lock(hashtextextended('pix:event-sequencer', 0)) as locked`,
);

// Positions for up to $1 committed events, in id order among themselves (they all committed before this statement's
// snapshot; none could be streamed before).
export const SEQUENCE = statement(
  'events.sequence',
  `
  with next as (
    delete from event_stream_pending
     where event_id in (select event_id from event_stream_pending order by event_id limit $1)
    returning event_id, merchant_id
  )
  insert into event_stream (event_id, merchant_id)
  select event_id, merchant_id
    from next
   order by event_id
  returning seq`,
);

// Tells every API process that positions were given (delivered when the sequencer's transaction commits).
export const NOTIFY_SEQUENCED = statement(
  'events.notify_sequenced',
  `
  select pg_notify('pix_event_stream', '')`,
);

export const HEAD = statement(
  'events.head',
  `
  select coalesce(max(seq), 0) as seq
    from event_stream`,
);

// Which merchants have events past $1, and up to where.
export const ADVANCED = statement(
  'events.advanced',
  `
  select merchant_id, max(seq) as seq
    from event_stream
   where seq > $1
   group by merchant_id`,
);

export type StreamRow = {
  seq: string;
  id: string;
  type: string;
  data: unknown;
  created_at: Date;
  principal: PrincipalRow | null;
};

// A merchant's events after position $3, in stream order, at most $4, each with what the stream's credential ($1: an
// API key's hash, a user id) resolves to in the same snapshot: a read that finds an event committed after the credential
// was revoked (or its merchant blocked) finds that too, so the stream can end instead of sending it.
const after = (principal: string) => `
  with p as (${principal})
  select s.seq, e.id, e.type, e.data, e.created_at,
         (select row_to_json(p) from p limit 1) as principal
    from event_stream s
    join events e on e.id = s.event_id
   where s.merchant_id = $2 and s.seq > $3
   order by s.seq
   limit $4`;
export const AFTER = {
  apiKey: statement('events.after_api_key', after(PRINCIPAL_OF.apiKey)),
  jwt: statement('events.after_jwt', after(PRINCIPAL_OF.jwt)),
};

// An event of the merchant ($1 id, $2 merchant) and its position: no row, not this merchant's; seq null, committed
// and not yet positioned.
export const POSITION_OF = statement(
  'events.position_of',
  `
  select e.id, s.seq
    from events e
    left join event_stream s on s.event_id = e.id
   where e.id = $1 and e.merchant_id = $2`,
);

// The merchant's latest positioned event: where a stream opened without a cursor starts.
export const LATEST_OF = statement(
  'events.latest_of',
  `
  select seq, event_id
    from event_stream
   where merchant_id = $1
   order by seq desc
   limit 1`,
);

// Serialises the stream openings of one merchant (in every process), so two cannot both take the last place.
export const LOCK_MERCHANT_STREAMS = statement(
  'events.lock_merchant_streams',
  `
  select pg_advisory_xact_lock(hashtextextended('pix:event-streams:' || $1::text, 0))`,
);

// Connections of this merchant not refreshed for $2 seconds: their process died.
export const DROP_STALE_CONNECTIONS = statement(
  'events.drop_stale_connections',
  `
  delete from event_stream_connections
   where merchant_id = $1 and seen_at < now() - $2 * interval '1 second'`,
);

export const COUNT_CONNECTIONS = statement(
  'events.count_connections',
  `
  select count(*)::int as n
    from event_stream_connections
   where merchant_id = $1`,
);

export const INSERT_CONNECTION = statement(
  'events.insert_connection',
  `
  insert into event_stream_connections (id, merchant_id, seen_at)
  values ($1, $2, now())`,
);

export const TOUCH_CONNECTIONS = statement(
  'events.touch_connections',
  `
  update event_stream_connections set seen_at = now()
   where id = any($1::uuid[])`,
);

export const DELETE_CONNECTION = statement(
  'events.delete_connection',
  `
  delete from event_stream_connections
   where id = $1`,
);
