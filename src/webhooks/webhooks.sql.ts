// Every statement on the events, webhooks and webhook_deliveries tables, with the rows they return.
// Numbered parameters ($1): these run on node-postgres connections, the daemon's pool or a MikroORM transaction seen
// through pgTx (src/platform/sql.ts explains the two paths). Statements run through MikroORM (em.execute) use `?` and
// say so.

export type EventRow = { id: string; merchant_id: string; type: string; data: unknown; created_at: Date };
export type SubscriberRow = { id: string; merchant_id: string; url: string; events: string[] };
export type DeliveryRow = {
  id: string;
  delivery_id: string;
  webhook_id: string;
  payload: string;
  status: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null; // still signing (its overlap runs)
  headers: Record<string, string> | null;
  rate_limit: number | null;
  webhook_status: string;
  deleted: boolean;
  merchant_id: string;
  breaker: boolean; // the webhook has a circuit breaker row (breaker.ts)
  breaker_wait: number | null; // seconds until its breaker's cooldown ends (<= 0: a probe may go); null when closed
};
export type LogRow = {
  webhook_id: string;
  id: string;
  delivery_id: string;
  event_type: string;
  url: string;
  payload: string;
  status_code: number | null;
  response: string | null;
  attempts: number;
  success: boolean;
  status: string;
  next_attempt_at: Date | null;
  created_at: Date;
};
export type ReplayCandidate = {
  id: string;
  delivery_id: string;
  status: string;
  attempts: number;
  webhook_status: string;
  deleted_at: string | null;
  merchant_id: string;
};

// The ACTIVE webhooks of these merchants: who gets a delivery of their events.
export const SUBSCRIBERS = `
  select id, merchant_id, url, events
    from webhooks
   where merchant_id = any($1::uuid[]) and status = 'ACTIVE' and deleted_at is null`;

// One delivery per (event, webhook); a re-run inserts nothing (and so enqueues nothing).
export const INSERT_DELIVERIES = `
  insert into webhook_deliveries (id, created_at, updated_at, delivery_id, event_id, webhook_id, event_type, url,
                                  payload, status, attempts, success, next_attempt_at)
  select r.id, now(), now(), r.delivery_id, r.event_id, r.webhook_id, r.event_type, r.url, r.payload, 'PENDING', 0,
         false, now()
    from jsonb_to_recordset($1::jsonb) as r(id uuid, delivery_id text, event_id uuid, webhook_id uuid, event_type text,
                                             url text, payload text)
      on conflict (event_id, webhook_id) do nothing
  returning id`;

// The daemon's view of a batch: each delivery with its webhook's current url, secret, status and circuit breaker.
export const LOAD_DELIVERIES = `
  select d.id, d.delivery_id, d.webhook_id, d.payload, d.status, d.attempts,
         w.url, w.secret, case when w.previous_secret_until > now() then w.previous_secret end as previous_secret,
         w.headers, w.rate_limit, w.status as webhook_status, w.deleted_at is not null as deleted, w.merchant_id,
         b.webhook_id is not null as breaker,
         extract(epoch from b.open_until - clock_timestamp())::float8 as breaker_wait
    from webhook_deliveries d
    join webhooks w on w.id = d.webhook_id
    left join webhook_breakers b on b.webhook_id = d.webhook_id
   where d.id = any($1::uuid[])`;

// Deliveries deferred by the daemon (a rate limit, an open circuit breaker): when their next attempt is due.
export const DEFER_DELIVERIES = `
  update webhook_deliveries d set next_attempt_at = now() + x.wait * interval '1 second'
    from unnest($1::uuid[], $2::float8[]) as x(id, wait)
   where d.id = x.id and d.status = 'PENDING'`;

// Deliveries of a webhook paused or deleted since they were queued: no further attempt.
export const CANCEL_DELIVERIES = `
  update webhook_deliveries d set status = 'CANCELED', next_attempt_at = null, updated_at = now()
    from unnest($1::uuid[], $2::int[]) as c(id, attempts)
   where d.id = c.id and d.status = 'PENDING' and d.attempts = c.attempts`;

// Attempts recorded together, each row guarded by its attempts count so a duplicated job can never count or schedule
// twice; it returns the rows it moved, and only those get a retry job. A success also ends its webhook's streak of
// final failures (auto-disable.ts) and closes its circuit breaker (breaker.ts), in the same statement; the webhook
// row is written only when it had a streak, and a breaker row another statement holds is left to the next success.
export const RECORD_ATTEMPTS = `
  with moved as (
    update webhook_deliveries d set attempts = d.attempts + 1, status_code = r.status_code, response = r.response,
                                    success = r.success, status = r.status, url = r.url,
                                    last_attempt_at = r.attempted_at,
                                    next_attempt_at = now() + r.delay * interval '1 second', updated_at = now()
      from jsonb_to_recordset($1::jsonb) as r(id uuid, attempts int, status_code int, response text, success boolean,
                                              status text, url text, attempted_at timestamptz, delay float8)
     where d.id = r.id and d.status = 'PENDING' and d.attempts = r.attempts
    returning d.id, d.webhook_id, d.status
  ),
  streak_ended as (
    update webhooks w set failures = '{}'
     where w.id in (select webhook_id from moved where status = 'SUCCEEDED') and cardinality(w.failures) > 0
  ),
  breaker_closed as (
    delete from webhook_breakers b
     using (select webhook_id
              from webhook_breakers
             where webhook_id in (select webhook_id from moved where status = 'SUCCEEDED')
               for update skip locked) c
     where b.webhook_id = c.webhook_id
  )
  select id
    from moved`;

// (MikroORM, `?`) The last `limit` logs of each webhook through LATERAL, served by (webhook_id, created_at desc, id
// desc).
export const LAST_LOGS = (limit: number) => `
  select l.*
    from (select id from webhooks where id in (?)) w
   cross join lateral (
           select d.webhook_id, d.id, d.delivery_id, d.event_type, d.url, d.payload, d.status_code, d.response,
                  d.attempts, d.success, d.status, d.next_attempt_at, d.created_at
             from webhook_deliveries d
            where d.webhook_id = w.id
            order by d.created_at desc, d.id desc
            limit ${limit}
         ) l
   order by l.created_at desc, l.id desc`;

// (MikroORM, `?`) Serialises webhook creations of one merchant, so two concurrent requests cannot both pass the limit.
export const LOCK_MERCHANT = `
  select id
    from merchants
   where id = ?
     for update`;

// (MikroORM, `?`) Replay candidates, locked so two operators (or a replay racing a daemon) cannot enqueue one twice.
export const REPLAY_CANDIDATES = (where: string[]) => `
  select d.id, d.delivery_id, d.status, d.attempts, w.status as webhook_status, w.deleted_at, w.merchant_id
    from webhook_deliveries d
    join webhooks w on w.id = d.webhook_id
   where ${where.join(' and ')}
   order by d.created_at, d.id
     for update of d`;

// (MikroORM, `?`) One JSON parameter however many rows: `in (?)` would spend one bind parameter per id (at most 65535).
export const REPLAY = `
  update webhook_deliveries set status = 'PENDING', next_attempt_at = now(), updated_at = now()
   where id in (select jsonb_array_elements_text(?::jsonb)::uuid)`;

// (MikroORM, `?`) Secrets not sealed under the current key (prefix `v1:<kid>:`), the secret being rotated out included
// while its overlap runs, locked, skipping rows another rotation (or a webhook update) holds and those that already
// failed in this run.
const NOT_CURRENT = `(not starts_with(secret, ?)
       or (previous_secret is not null and previous_secret_until > now() and not starts_with(previous_secret, ?)))`;
export const SECRETS_TO_RESEAL = `
  select id, secret, case when previous_secret_until > now() then previous_secret end as previous_secret
    from webhooks
   where ${NOT_CURRENT} and id not in (select jsonb_array_elements_text(?::jsonb)::uuid)
   order by id
   limit ?
     for update skip locked`;

// (MikroORM, `?`) Writes re-sealed secrets; updated_at stays, the merchant changed nothing. A rotated-out secret past
// its overlap is dropped.
export const RESEAL_SECRETS = `
  update webhooks w set secret = r.secret, previous_secret = r.previous_secret,
                        previous_secret_until = case when r.previous_secret is null then null
                                                     else w.previous_secret_until end
    from jsonb_to_recordset(?::jsonb) as r(id uuid, secret text, previous_secret text)
   where w.id = r.id`;

// (MikroORM, `?`) Secrets still to re-seal.
export const COUNT_TO_RESEAL = `
  select count(*)::int as n
    from webhooks
   where ${NOT_CURRENT}`;

// (MikroORM) How many secrets each key id seals; legacy rows count as "plaintext".
export const SECRETS_BY_KEY = `
  select case when starts_with(v.s, 'v1:') then split_part(v.s, ':', 2) else 'plaintext' end as kid,
         count(*)::int as n
    from webhooks w
   cross join lateral (values (w.secret), (case when w.previous_secret_until > now() then w.previous_secret end)) v(s)
   where v.s is not null
   group by 1
   order by 1`;
