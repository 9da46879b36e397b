// The charges' metrics statement: charges per status, from the append-only counters.
import { statement } from '../platform/sql.ts';

export const BY_STATUS = statement(
  'charges.metrics_by_status',
  `
  select status, sum(count) as n
    from charge_counts
   group by status`,
);
