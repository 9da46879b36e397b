// The statements of breaker.ts (declared `$n` statements: src/platform/sql.ts).
import { statement } from '../platform/sql.ts';

// Counts each webhook's new unhealthy outcomes. A breaker opens when they reach the threshold while it is closed or
// past its cooldown, and opens again, for twice as long, when its probe was out: rows in webhook order (no deadlock).
const REOPEN = `b.probe_until is not null
                or (coalesce(b.open_until <= clock_timestamp(), true) and b.failures + excluded.failures >= $2::int)`;

export const RECORD_UNHEALTHY = statement(
  'webhooks.record_unhealthy',
  `
  insert into webhook_breakers as b (webhook_id, failures, opened, open_until, probe_until)
  select r.webhook_id, r.n, case when r.n >= $2::int then 1 else 0 end,
         case when r.n >= $2::int then clock_timestamp() + $3::float8 * interval '1 second' end, null
    from jsonb_to_recordset($1::jsonb) as r(webhook_id uuid, n int)
   order by r.webhook_id
      on conflict (webhook_id) do update
     set failures = b.failures + excluded.failures,
         opened = case when ${REOPEN} then b.opened + 1 else b.opened end,
         open_until = case when ${REOPEN}
                           then clock_timestamp() + least($3::float8 * power(2, b.opened), $4::float8)
                                                    * interval '1 second'
                           else b.open_until end,
         probe_until = null`,
);

// A healthy answer that is not a success (a 4xx) closes the breaker (a success does in RECORD_ATTEMPTS); rows another
// statement holds are skipped, never waited for.
export const CLOSE = statement(
  'webhooks.close',
  `
  delete from webhook_breakers b
   using (select webhook_id
            from webhook_breakers
           where webhook_id = any($1::uuid[])
             for update skip locked) c
   where b.webhook_id = c.webhook_id`,
);

// Breakers past their cooldown with no probe out (or one whose window passed: its daemon died): one probe each, to
// whoever claims it first.
export const CLAIM_PROBE = statement(
  'webhooks.claim_probe',
  `
  update webhook_breakers b
     set probe_until = clock_timestamp() + $2::float8 * interval '1 second'
    from (select webhook_id
            from webhook_breakers
           where webhook_id = any($1::uuid[]) and open_until <= clock_timestamp()
             and coalesce(probe_until <= clock_timestamp(), true)
             for update skip locked) c
   where b.webhook_id = c.webhook_id
  returning b.webhook_id`,
);
