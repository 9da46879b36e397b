// The statements of the PSP's callbacks and polls (apipix), declared `$n` statements run through ormSql: which
// recurring charge a cobr's txid is, and when a PUSH mandate's current request was made.
import { statement } from '../platform/sql.ts';
import type { RecurringChargeStatus } from './recurring-charge.entity.ts';

export type ChargeByTxid = { id: string; merchant_id: string; status: RecurringChargeStatus };

export const CHARGE_BY_TXID = statement(
  'recurring_callbacks.charge_by_txid',
  `
  select id, merchant_id, status
    from recurring_charges
   where txid = $1`,
);

export type RequestState = { request_status: string | null; updated_at: Date | string };

export const REQUEST_STATE = statement(
  'recurring_callbacks.request_state',
  `
  select request_status, updated_at
    from mandates
   where id = $1`,
);

// What the poll compares with the PSP's listing, one page at a time (rec_id and txid are unique: index reads).
// Parameter: the page's recIds (txids), an array.
export type MandateState = { rec_id: string; status: string; request_status: string | null };
export const MANDATES_BY_REC_IDS = statement(
  'recurring_callbacks.mandates_by_rec_ids',
  `
  select rec_id, status, request_status
    from mandates
   where rec_id = any($1::text[])`,
);

export type ChargeState = { txid: string; status: string; attempts: { date: string; status: string }[] };
export const CHARGES_BY_TXIDS = statement(
  'recurring_callbacks.charges_by_txids',
  `
  select txid, status, attempts
    from recurring_charges
   where txid = any($1::text[])`,
);
