// The statements of the payments module (declared `$n` statements: src/platform/sql.ts).
import { statement } from '../platform/sql.ts';

// The endToEndIds among these that the service already settled (paid a charge, or recorded as unmatched and booked: a
// HELD record, never confirmed by the acquirer, is not settled).
export const KNOWN_PAYMENTS = statement(
  'payments.known_payments',
  `
  select end_to_end_id
    from charges
   where end_to_end_id = any($1::text[])
   union select end_to_end_id
    from unmatched_payments
   where end_to_end_id = any($1::text[]) and status <> 'HELD'`,
);
