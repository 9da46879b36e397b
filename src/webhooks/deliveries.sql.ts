// The merchant's delivery-log statements (deliveries.service.ts), run through MikroORM: `?` parameters.

// The columns of a log as the API shows it (LogRow, webhooks.view.ts).
export const LOG_COLUMNS = `d.webhook_id, d.id, d.delivery_id, d.event_type, d.url, d.payload, d.status, d.status_code,
  d.response, d.attempts, d.success, d.next_attempt_at, d.created_at`;

// A webhook's logs, newest first, filtered by status and event. The conditions always start with webhook_id, so one
// of (webhook_id, created_at desc, id desc), (webhook_id, status, …) or (webhook_id, event_type, …) serves both the
// count (index only) and the page's ids; the page's rows are then read by id. `where` is built from constants.
export const DELIVERY_COUNT = (where: string) => `
  select count(*)::int as total
    from webhook_deliveries d
   where ${where}`;

export const DELIVERY_PAGE = (where: string) => `
  select ${LOG_COLUMNS}
    from webhook_deliveries d
   where d.id in (select d.id
                    from webhook_deliveries d
                   where ${where}
                   order by d.created_at desc, d.id desc
                   limit ? offset ?)
   order by d.created_at desc, d.id desc`;

// One log of a webhook, by its id or its deliveryId (the webhook-id a receiver quotes), locked for a resend.
export const DELIVERY_FOR_UPDATE = (byUuid: boolean) => `
  select ${LOG_COLUMNS}
    from webhook_deliveries d
   where d.webhook_id = ? and ${byUuid ? '(d.id = ? or d.delivery_id = ?)' : 'd.delivery_id = ?'}
     for update`;

// One log by id (the view after a change).
export const DELIVERY_BY_ID = `
  select ${LOG_COLUMNS}
    from webhook_deliveries d
   where d.id = ?`;

// Back to PENDING, due now: the job enqueued in the same transaction makes the attempt.
export const REQUEUE = `
  update webhook_deliveries
     set status = 'PENDING', next_attempt_at = now(), updated_at = now()
   where id in (select jsonb_array_elements_text(?::jsonb)::uuid)`;

// The deliveries of a webhook that ended without success (FAILED, or CANCELED while the webhook was paused) created in
// [since, until), locked so two recovers (or a recover and an operator replay) cannot queue one twice. Served by
// (webhook_id, status, created_at desc, id desc).
export const RECOVERABLE = `
  select d.id, d.attempts
    from webhook_deliveries d
   where d.webhook_id = ? and d.status in ('FAILED', 'CANCELED') and d.created_at >= ?::timestamptz
     and d.created_at < ?::timestamptz
   order by d.created_at, d.id
     for update`;

// A test delivery: no event (event_id null), one attempt queued like any other.
export const INSERT_TEST_DELIVERY = `
  insert into webhook_deliveries (id, created_at, updated_at, delivery_id, event_id, webhook_id, event_type, url,
                                  payload, status, attempts, success, next_attempt_at)
  values (?, now(), now(), ?, null, ?, ?, ?, ?, 'PENDING', 0, false, now())`;

// The test deliveries of a webhook in the last minute (at most TEST_SENDS_PER_MINUTE), and when the oldest leaves that
// minute; served by (webhook_id, created_at desc, id desc).
export const RECENT_TEST_SENDS = `
  select count(*)::int as n, coalesce(extract(epoch from min(d.created_at) + interval '1 minute' - now()), 0)::float8
         as retry_after
    from webhook_deliveries d
   where d.webhook_id = ? and d.created_at > now() - interval '1 minute' and d.event_id is null`;
