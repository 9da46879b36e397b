// Every statement on the events, webhooks and webhook_deliveries tables, with the rows they return.
// Declared `$n` statements (src/platform/sql.ts): they run on the daemon's pool or on MikroORM's connection, through the
// one handle. Every status a delivery takes is a row of DELIVERY_TRANSITIONS.
import { from, statement, to, type Transition } from '../platform/sql.ts';

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED';

/**
 * Every status change of a delivery. An attempt (RECORD_ATTEMPTS) moves a PENDING delivery to the outcome the daemon
 * recorded: SUCCEEDED, PENDING again (a retry follows) or FAILED (every attempt used); a webhook paused or deleted
 * cancels what it still had PENDING; an operator's replay and a merchant's resend or recover queue an ended one again.
 * No event: deliveries are how events travel, not events.
 */
export const DELIVERY_TRANSITIONS = {
  succeed: { from: ['PENDING'], to: 'SUCCEEDED', event: null },
  retry: { from: ['PENDING'], to: 'PENDING', event: null },
  fail: { from: ['PENDING'], to: 'FAILED', event: null },
  cancel: { from: ['PENDING'], to: 'CANCELED', event: null },
  requeue: { from: ['SUCCEEDED', 'FAILED', 'CANCELED'], to: 'PENDING', event: null },
} as const satisfies Record<string, Transition<DeliveryStatus>>;
const T = DELIVERY_TRANSITIONS;

// The status changes of a webhook the service makes itself (a merchant's PATCH sets the status it asks for): the
// automatic disabling of one whose deliveries all failed for long enough (auto-disable.ts).
export const WEBHOOK_TRANSITIONS = {
  disable: { from: ['ACTIVE'], to: 'INACTIVE', event: null },
} as const satisfies Record<string, Transition<'ACTIVE' | 'INACTIVE'>>;

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
export const SUBSCRIBERS = statement(
  'webhooks.subscribers',
  `
  select id, merchant_id, url, events
    from webhooks
   where merchant_id = any($1::uuid[]) and status = 'ACTIVE' and deleted_at is null`,
);

// One delivery per (event, webhook); a re-run inserts nothing (and so enqueues nothing).
export const INSERT_DELIVERIES = statement(
  'webhooks.insert_deliveries',
  `
  insert into webhook_deliveries (id, created_at, updated_at, delivery_id, event_id, webhook_id, event_type, url,
                                  payload, status, attempts, success, next_attempt_at)
  select r.id, now(), now(), r.delivery_id, r.event_id, r.webhook_id, r.event_type, r.url, r.payload, 'PENDING', 0,
         false, now()
    from jsonb_to_recordset($1::jsonb) as r(id uuid, delivery_id text, event_id uuid, webhook_id uuid, event_type text,
                                             url text, payload text)
      on conflict (event_id, webhook_id) do nothing
  returning id`,
);

// The daemon's view of a batch: each delivery with its webhook's current url, secret, status and circuit breaker.
export const LOAD_DELIVERIES = statement(
  'webhooks.load_deliveries',
  `
  select d.id, d.delivery_id, d.webhook_id, d.payload, d.status, d.attempts,
         w.url, w.secret, case when w.previous_secret_until > now() then w.previous_secret end as previous_secret,
         w.headers, w.rate_limit, w.status as webhook_status, w.deleted_at is not null as deleted, w.merchant_id,
         b.webhook_id is not null as breaker,
         extract(epoch from b.open_until - clock_timestamp())::float8 as breaker_wait
    from webhook_deliveries d
    join webhooks w on w.id = d.webhook_id
    left join webhook_breakers b on b.webhook_id = d.webhook_id
   where d.id = any($1::uuid[])`,
);

// Deliveries deferred by the daemon (a rate limit, an open circuit breaker): when their next attempt is due.
export const DEFER_DELIVERIES = statement(
  'webhooks.defer_deliveries',
  `
  update webhook_deliveries d set next_attempt_at = now() + x.wait * interval '1 second'
    from unnest($1::uuid[], $2::float8[]) as x(id, wait)
   where d.id = x.id and d.status in (${from(T.retry)})`,
);

// Deliveries of a webhook paused or deleted since they were queued: no further attempt.
export const CANCEL_DELIVERIES = statement(
  'webhooks.cancel_deliveries',
  `
  update webhook_deliveries d set status = ${to(T.cancel)}, next_attempt_at = null, updated_at = now()
    from unnest($1::uuid[], $2::int[]) as c(id, attempts)
   where d.id = c.id and d.status in (${from(T.cancel)}) and d.attempts = c.attempts`,
);

// Attempts recorded together, each row guarded by its attempts count so a duplicated job can never count or schedule
// twice; it returns the rows it moved, and only those get a retry job. A success also ends its webhook's streak of
// final failures (auto-disable.ts) and closes its circuit breaker (breaker.ts), in the same statement; the webhook
// row is written only when it had a streak, and a breaker row another statement holds is left to the next success.
// Each row's status is the `to` of its attempt's transition (succeed, retry or fail: deliver.ts OUTCOMES), all from
// PENDING.
export const RECORD_ATTEMPTS = statement(
  'webhooks.record_attempts',
  `
  with moved as (
    update webhook_deliveries d set attempts = d.attempts + 1, status_code = r.status_code, response = r.response,
                                    success = r.success, status = r.status, url = r.url,
                                    last_attempt_at = r.attempted_at,
                                    next_attempt_at = now() + r.delay * interval '1 second', updated_at = now()
      from jsonb_to_recordset($1::jsonb) as r(id uuid, attempts int, status_code int, response text, success boolean,
                                              status text, url text, attempted_at timestamptz, delay float8)
     where d.id = r.id and d.status in (${from(T.retry)}) and d.attempts = r.attempts
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
    from moved`,
);

// The last `$2` logs of each webhook of `$1` through LATERAL, served by (webhook_id, created_at desc, id desc).
export const LAST_LOGS = statement(
  'webhooks.last_logs',
  `
  select l.*
    from (select id from webhooks where id = any($1::uuid[])) w
   cross join lateral (
           select d.webhook_id, d.id, d.delivery_id, d.event_type, d.url, d.payload, d.status_code, d.response,
                  d.attempts, d.success, d.status, d.next_attempt_at, d.created_at
             from webhook_deliveries d
            where d.webhook_id = w.id
            order by d.created_at desc, d.id desc
            limit $2
         ) l
   order by l.created_at desc, l.id desc`,
);

// Serialises webhook creations of one merchant, so two concurrent requests cannot both pass the limit.
export const LOCK_MERCHANT = statement(
  'webhooks.lock_merchant',
  `
  select id
    from merchants
   where id = $1
     for update`,
);

// Replay candidates, locked so two operators (or a replay racing a daemon) cannot enqueue one twice. Parameters: the
// delivery asked for (its deliveryId, or its log id as `$2` when a UUID), the webhook, since, until (each null: any),
// and whether any status is taken (one delivery named: its status is reported) or FAILED ones only.
export const REPLAY_CANDIDATES = statement(
  'webhooks.replay_candidates',
  `
  select d.id, d.delivery_id, d.status, d.attempts, w.status as webhook_status, w.deleted_at, w.merchant_id
    from webhook_deliveries d
    join webhooks w on w.id = d.webhook_id
   where ($1::text is null or d.delivery_id = $1 or d.id = $2::uuid) and ($3::uuid is null or d.webhook_id = $3)
     and ($4::timestamptz is null or d.created_at >= $4) and ($5::timestamptz is null or d.created_at < $5)
     and ($6::boolean or d.status = ${to(T.fail)})
   order by d.created_at, d.id
     for update of d`,
);

// An operator's replay of FAILED deliveries (chosen and locked by REPLAY_CANDIDATES): queued again, due now.
export const REPLAY = statement(
  'webhooks.replay',
  `
  update webhook_deliveries set status = ${to(T.requeue)}, next_attempt_at = now(), updated_at = now()
   where id = any($1::uuid[]) and status in (${from(T.requeue)})`,
);

// Secrets not sealed under the current key (prefix `v1:<kid>:`), the secret being rotated out included
// while its overlap runs, locked, skipping rows another rotation (or a webhook update) holds and those that already
// failed in this run.
// `$1`: the current key's prefix.
const NOT_CURRENT = `(not starts_with(secret, $1)
       or (previous_secret is not null and previous_secret_until > now() and not starts_with(previous_secret, $1)))`;
// Parameters: the current key's prefix, the ids that failed in this run, the batch size.
export const SECRETS_TO_RESEAL = statement(
  'webhooks.secrets_to_reseal',
  `
  select id, secret, case when previous_secret_until > now() then previous_secret end as previous_secret
    from webhooks
   where ${NOT_CURRENT} and id <> all($2::uuid[])
   order by id
   limit $3
     for update skip locked`,
);

// Writes re-sealed secrets (`$1`: a JSON array); updated_at stays, the merchant changed nothing. A rotated-out secret past
// its overlap is dropped.
export const RESEAL_SECRETS = statement(
  'webhooks.reseal_secrets',
  `
  update webhooks w set secret = r.secret, previous_secret = r.previous_secret,
                        previous_secret_until = case when r.previous_secret is null then null
                                                     else w.previous_secret_until end
    from jsonb_to_recordset($1::jsonb) as r(id uuid, secret text, previous_secret text)
   where w.id = r.id`,
);

// Secrets still to re-seal (`$1`: the current key's prefix).
export const COUNT_TO_RESEAL = statement(
  'webhooks.count_to_reseal',
  `
  select count(*)::int as n
    from webhooks
   where ${NOT_CURRENT}`,
);

// How many secrets each key id seals; legacy rows count as "plaintext".
export const SECRETS_BY_KEY = statement(
  'webhooks.secrets_by_key',
  `
  select case when starts_with(v.s, 'v1:') then split_part(v.s, ':', 2) else 'plaintext' end as kid,
         count(*)::int as n
    from webhooks w
   cross join lateral (values (w.secret), (case when w.previous_secret_until > now() then w.previous_secret end)) v(s)
   where v.s is not null
   group by 1
   order by 1`,
);
