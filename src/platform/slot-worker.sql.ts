// The statements of slot-worker.ts (declared `$n` statements: src/platform/sql.ts).
import { statement } from './sql.ts';

// The lock that serialises the reserved fetches of one queue, in the fetch's own transaction.
export const FETCH_LOCK = statement(
  'platform.fetch_lock',
  `
  select pg_advisory_xact_lock(hashtextextended('pix:slot-fetch:' || $1::text, 0))`,
);
