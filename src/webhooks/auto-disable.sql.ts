// The statements of auto-disable.ts (declared `$n` statements: src/platform/sql.ts).
import { from, statement, to } from '../platform/sql.ts';
import { WEBHOOK_TRANSITIONS as T } from './webhooks.sql.ts';

export const LOCK_WEBHOOKS = statement(
  'webhooks.lock_webhooks',
  `
  select id
    from webhooks
   where id = any($1::uuid[])
   order by id
     for update`,
);

// Appends each webhook's new final failures and keeps the last $2.
export const PUSH_FAILURES = statement(
  'webhooks.push_failures',
  `
  update webhooks w
     set failures = (w.failures || r.failed)[greatest(1, cardinality(w.failures || r.failed) - $2 + 1):]
    from jsonb_to_recordset($1::jsonb) as r(webhook_id uuid, failed timestamptz[])
   where w.id = r.webhook_id`,
);

export const DISABLE_FAILING = statement(
  'webhooks.disable_failing',
  `
  update webhooks
     set status = ${to(T.disable)}, disabled_reason = 'FAILING', disabled_at = now(), updated_at = now()
   where id = any($1::uuid[]) and status in (${from(T.disable)}) and deleted_at is null and cardinality(failures) >= $2
     and failures[cardinality(failures)] - failures[1] >= $3 * interval '1 second'
  returning id`,
);
