// The statements of rate-limit.ts (declared `$n` statements: src/platform/sql.ts).
import { statement } from '../platform/sql.ts';

export const ENSURE_SLOTS = statement(
  'webhooks.ensure_slots',
  `
  insert into webhook_rate_slots (webhook_id, slot_start, next_at)
  select unnest($1::uuid[]), '-infinity', '-infinity'
      on conflict (webhook_id) do nothing`,
);

// Rows locked in id order first, so two daemons reserving for the same webhooks cannot deadlock.
export const RESERVE_SLOTS = statement(
  'webhooks.reserve_slots',
  `
  with locked as (
    select webhook_id
      from webhook_rate_slots
     where webhook_id in (select r.webhook_id from jsonb_to_recordset($1::jsonb) as r(webhook_id uuid))
     order by webhook_id
       for update
  )
  update webhook_rate_slots s
     set slot_start = greatest(s.next_at, clock_timestamp()),
         next_at = greatest(s.next_at, clock_timestamp())
                   + least(r.n, greatest(0, ceil(($2::float8 - extract(epoch from greatest(s.next_at, clock_timestamp())
                                                                  - clock_timestamp())) * r.rate)))::int
                     * interval '1 second' / r.rate
    from jsonb_to_recordset($1::jsonb) as r(webhook_id uuid, n int, rate int)
   where s.webhook_id = r.webhook_id and s.webhook_id in (select webhook_id from locked)
  returning s.webhook_id, extract(epoch from s.slot_start - clock_timestamp())::float8 as wait,
            round(extract(epoch from s.next_at - s.slot_start) * r.rate)::int as granted`,
);
