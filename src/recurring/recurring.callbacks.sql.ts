// The statements of the PSP's callbacks and polls (apipix): which recurring charge a cobr's txid is, and when a PUSH
// mandate's current request was made.
import type { RecurringChargeStatus } from './recurring-charge.entity.ts';

export type ChargeByTxid = { id: string; merchant_id: string; status: RecurringChargeStatus };

export const CHARGE_BY_TXID = `
  select id, merchant_id, status
    from recurring_charges
   where txid = ?`;

export type RequestState = { request_status: string | null; updated_at: Date | string };

export const REQUEST_STATE = `
  select request_status, updated_at
    from mandates
   where id = ?`;

// What the poll compares with the PSP's listing, one page at a time (rec_id and txid are unique: index reads).
export type MandateState = { rec_id: string; status: string; request_status: string | null };
export const MANDATES_BY_REC_IDS = `
  select rec_id, status, request_status
    from mandates
   where rec_id = any(?::text[])`;

export type ChargeState = { txid: string; status: string; attempts: { date: string; status: string }[] };
export const CHARGES_BY_TXIDS = `
  select txid, status, attempts
    from recurring_charges
   where txid = any(?::text[])`;
