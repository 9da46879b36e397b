// The merchant's delivery-log statements (deliveries.service.ts), declared `$n` statements (src/platform/sql.ts).
import { from, statement, statuses, to, type Statement } from '../platform/sql.ts';
import { DELIVERY_TRANSITIONS as T } from './webhooks.sql.ts';

// The columns of a log as the API shows it (LogRow, webhooks.view.ts).
export const LOG_COLUMNS = `d.webhook_id, d.id, d.delivery_id, d.event_type, d.url, d.payload, d.status, d.status_code,
  d.response, d.attempts, d.success, d.next_attempt_at, d.created_at`;

// The statuses a listed one filters (logView shows CANCELED as FAILED).
export type ListedStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';
const STORED: Record<ListedStatus, readonly string[]> = {
  PENDING: ['PENDING'],
  SUCCEEDED: ['SUCCEEDED'],
  FAILED: ['FAILED', 'CANCELED'],
};

/**
 * A webhook's logs, newest first, filtered by status and event: one count and one page statement per filter (the
 * webhook `$1`, the event type `$2` when filtered, then limit and offset). The conditions always start with
 * webhook_id, so one of (webhook_id, created_at desc, id desc), (webhook_id, status, …) or (webhook_id, event_type, …)
 * serves both the count (index only) and the page's ids; the page's rows are then read by id.
 */
function logStatements(status: ListedStatus | undefined, event: boolean) {
  const key = `${status?.toLowerCase() ?? 'any'}_${event ? 'event' : 'all'}`;
  const where = [
    'd.webhook_id = $1',
    ...(status ? [`d.status in (${statuses(STORED[status])})`] : []),
    ...(event ? ['d.event_type = $2'] : []),
  ].join(' and ');
  const n = event ? 3 : 2;
  return {
    count: statement(
      `webhooks.delivery_count_${key}`,
      `
  select count(*)::int as total
    from webhook_deliveries d
   where ${where}`,
    ),
    page: statement(
      `webhooks.delivery_page_${key}`,
      `
  select ${LOG_COLUMNS}
    from webhook_deliveries d
   where d.id in (select d.id
                    from webhook_deliveries d
                   where ${where}
                   order by d.created_at desc, d.id desc
                   limit $${n} offset $${n + 1})
   order by d.created_at desc, d.id desc`,
    ),
  };
}
const LOGS = new Map(
  [undefined, 'PENDING', 'SUCCEEDED', 'FAILED'].flatMap((s) =>
    [false, true].map((e) => [`${s}_${e}`, logStatements(s as ListedStatus | undefined, e)] as const),
  ),
);
export const deliveryLogs = (status: ListedStatus | undefined, event: boolean): { count: Statement; page: Statement } =>
  LOGS.get(`${status}_${event}`)!;

// One log of a webhook, by its id or its deliveryId (the webhook-id a receiver quotes), locked for a resend.
// Parameters: the webhook, then the reference (twice when it is a UUID).
export const DELIVERY_FOR_UPDATE = {
  byUuid: statement(
    'webhooks.delivery_for_update_by_uuid',
    `
  select ${LOG_COLUMNS}
    from webhook_deliveries d
   where d.webhook_id = $1 and (d.id = $2 or d.delivery_id = $3)
     for update`,
  ),
  byDeliveryId: statement(
    'webhooks.delivery_for_update',
    `
  select ${LOG_COLUMNS}
    from webhook_deliveries d
   where d.webhook_id = $1 and d.delivery_id = $2
     for update`,
  ),
};

// One log by id (the view after a change).
export const DELIVERY_BY_ID = statement(
  'webhooks.delivery_by_id',
  `
  select ${LOG_COLUMNS}
    from webhook_deliveries d
   where d.id = $1`,
);

// Back to PENDING, due now (`$1`: the ids): the job enqueued in the same transaction makes the attempt.
export const REQUEUE = statement(
  'webhooks.requeue',
  `
  update webhook_deliveries
     set status = ${to(T.requeue)}, next_attempt_at = now(), updated_at = now()
   where id = any($1::uuid[]) and status in (${from(T.requeue)})`,
);

// The deliveries of a webhook that ended without success (FAILED, or CANCELED while the webhook was paused) created in
// [since, until), locked so two recovers (or a recover and an operator replay) cannot queue one twice. Served by
// (webhook_id, status, created_at desc, id desc).
export const RECOVERABLE = statement(
  'webhooks.recoverable',
  `
  select d.id, d.attempts
    from webhook_deliveries d
   where d.webhook_id = $1 and d.status in ('FAILED', 'CANCELED') and d.created_at >= $2::timestamptz
     and d.created_at < $3::timestamptz
   order by d.created_at, d.id
     for update`,
);

// A test delivery: no event (event_id null), one attempt queued like any other.
export const INSERT_TEST_DELIVERY = statement(
  'webhooks.insert_test_delivery',
  `
  insert into webhook_deliveries (id, created_at, updated_at, delivery_id, event_id, webhook_id, event_type, url,
                                  payload, status, attempts, success, next_attempt_at)
  values ($1, now(), now(), $2, null, $3, $4, $5, $6, 'PENDING', 0, false, now())`,
);

// The test deliveries of a webhook in the last minute (at most TEST_SENDS_PER_MINUTE), and when the oldest leaves that
// minute; served by (webhook_id, created_at desc, id desc).
export const RECENT_TEST_SENDS = statement(
  'webhooks.recent_test_sends',
  `
  select count(*)::int as n, coalesce(extract(epoch from min(d.created_at) + interval '1 minute' - now()), 0)::float8
         as retry_after
    from webhook_deliveries d
   where d.webhook_id = $1 and d.created_at > now() - interval '1 minute' and d.event_id is null`,
);
