// The deliveries' metrics statement: deliveries failed for good in the last 7 days.
import { statement } from '../platform/sql.ts';

export const FAILED_7D = statement(
  'webhooks.metrics_failed_7d',
  `
  select count(*) as n
    from webhook_deliveries
   where status = 'FAILED' and created_at > now() - interval '7 days'`,
);
