// Every statement on the mandates table (run through MikroORM: `?` parameters), with its rows. Reads the merchants,
// pix_keys and charges tables for a new mandate's prerequisites, its DUE_DATE_QR charge and its recurrence's location.
import type { PageSpec } from '../platform/counters.ts';
import { statuses, type Transition } from '../platform/sql.ts';
import type { AutoCharge, MandateCancellation, MandateHistory, MandateStatus, PayerAccount } from './mandate.entity.ts';

export type Instant = Date | string; // raw SQL returns timestamps as text

// A mandates row as raw SQL returns it (dates `YYYY-MM-DD`, jsonb parsed).
export type MandateRow = {
  id: string;
  merchant_id: string;
  rec_id: string;
  journey: 'PUSH' | 'QR' | 'QR_WITH_PAYMENT' | 'DUE_DATE_QR';
  status: MandateStatus;
  customer_name: string;
  customer_document: string;
  contract: string;
  object: string;
  frequency: 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
  start_date: string;
  end_date: string | null;
  amount: number | null;
  min_amount: number | null;
  payer_max_amount: number | null;
  retry_policy: 'NONE' | 'THREE_IN_SEVEN_DAYS';
  expires_at: Instant;
  qr_code: string | null;
  location: string | null;
  charge_id: string | null;
  payer_account: PayerAccount | null;
  request_status: 'SENT' | 'ACCEPTED' | 'REJECTED' | 'EXPIRED' | 'CANCELED' | null;
  request_id: string | null;
  auto_charge: AutoCharge | null;
  cancellation: MandateCancellation | null;
  history: MandateHistory;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: Instant;
};

const COLUMNS = `id, merchant_id, rec_id, journey, status, customer_name, customer_document, contract, object, frequency,
  start_date, end_date, amount, min_amount, payer_max_amount, retry_policy, expires_at, qr_code, location, charge_id,
  payer_account, request_status, request_id, auto_charge, cancellation, history, idempotency_key, request_hash,
  created_at`;

// What a new mandate needs of its merchant: a CNPJ, KYC approved, an acquirer account, an ACTIVE PIX key.
export const MERCHANT_FOR_MANDATE = `
  select m.document, m.kyc_status, m.acquirer_account_id,
         exists (select 1 from pix_keys k where k.merchant_id = m.id and k.status = 'ACTIVE') as has_pix_key
    from merchants m
   where m.id = ?`;
export type MerchantForMandate = {
  document: string;
  kyc_status: string;
  acquirer_account_id: string | null;
  has_pix_key: boolean;
};

// DUE_DATE_QR: the charge the approval pays, when it is a PENDING due-date charge of the merchant whose payer is the
// mandate's customer and no live mandate already pays it. Parameters: charge id, merchant id, customer document.
export const DUE_DATE_CHARGE = `
  select c.id, c.txid, c.amount
    from charges c
    join customers cu on cu.id = c.customer_id
   where c.id = ?
     and c.merchant_id = ?
     and c.type = 'DUE_DATE'
     and c.status = 'PENDING'
     and cu.document = ?
     and not exists (select 1 from mandates x where x.charge_id = c.id and x.status in ('CREATED', 'APPROVED'))`;

// A new mandate, guarded by its merchant's prerequisites (as a charge's insert is): none slips in after the CNPJ, KYC,
// the acquirer account or the last PIX key went away. Parameters: the 27 values, then the merchant id twice.
export const INSERT_MANDATE = `
  insert into mandates (id, created_at, updated_at, merchant_id, rec_id, journey, status, customer_name,
                        customer_document, contract, object, frequency, start_date, end_date, amount, min_amount,
                        retry_policy, expires_at, qr_code, location, charge_id, payer_account, request_status,
                        request_id, auto_charge, history, idempotency_key, request_hash)
  select ?, ?::timestamptz, ?::timestamptz, ?::uuid, ?, ?, 'CREATED', ?, ?, ?, ?, ?, ?::date, ?::date, ?::int, ?::int, ?,
         ?::timestamptz, ?, ?, ?::uuid, ?::jsonb, ?, ?, ?::jsonb, ?::jsonb, ?, ?
   where exists (
         select 1
           from merchants m
          where m.id = ? and length(m.document) = 14 and m.kyc_status = 'APPROVED' and m.acquirer_account_id is not null)
     and exists (select 1 from pix_keys k where k.merchant_id = ? and k.status = 'ACTIVE')
  returning ${COLUMNS}`;

export const BY_ID = `
  select ${COLUMNS}
    from mandates
   where id = ?`;

export const OF_MERCHANT = `
  select ${COLUMNS}
    from mandates
   where id = ?
     and merchant_id = ?`;

export const BY_IDEMPOTENCY_KEY = `
  select ${COLUMNS}
    from mandates
   where merchant_id = ?
     and idempotency_key = ?`;

export const LOCK = `
  select ${COLUMNS}
    from mandates
   where id = ?
     for update`;

export const ID_BY_REC_ID = `
  select id
    from mandates
   where rec_id = ?`;

type T = Transition<MandateStatus>;

// A PUSH mandate's request follows its mandate: accepted with the approval, rejected with the rejection, cancelled or
// expired with the mandate, while it was still SENT.
const requestFollows = (to: string) => `case when request_status = 'SENT' then '${to}' else request_status end`;
const REQUEST_OF: Record<MandateStatus, string> = {
  CREATED: 'SENT',
  APPROVED: 'ACCEPTED',
  REJECTED: 'REJECTED',
  EXPIRED: 'EXPIRED',
  CANCELED: 'CANCELED',
};

// Every transition: the status, its history entry (parameter: its time) and the request's status; the guard. approve
// also sets payer_max_amount, cancel the cancellation (parameters in that order, then the id).
export const MOVE = (t: T, extra: 'payer_max_amount' | 'cancellation' | null) => `
  update mandates set status = ${statuses([t.to])},
         history = history || jsonb_build_array(jsonb_build_object('status', '${t.to}', 'at', ?::text)),
         request_status = ${requestFollows(REQUEST_OF[t.to])},
         updated_at = now()${extra === 'payer_max_amount' ? ', payer_max_amount = ?' : ''}${extra === 'cancellation' ? ', cancellation = ?::jsonb' : ''}
   where id = ?
     and status in (${statuses(t.from)})
  returning ${COLUMNS}`;

// A PUSH mandate's request, set by the PSP's word (apipix) or the sandbox. Parameters: status, id.
export const SET_REQUEST_STATUS = `
  update mandates set request_status = ?, updated_at = now()
   where id = ?
     and journey = 'PUSH'
     and request_status is distinct from ?
  returning ${COLUMNS}`;

// A new request to the payer's PSP while the mandate is CREATED and its last request EXPIRED or was REJECTED.
// Parameters: request id, id.
export const NEW_REQUEST = `
  update mandates set request_status = 'SENT', request_id = ?, updated_at = now()
   where id = ?
     and journey = 'PUSH'
     and status = 'CREATED'
     and request_status in ('EXPIRED', 'REJECTED')
  returning ${COLUMNS}`;

// The listing (countedPage): by merchant, and status when asked.
export const MANDATE_PAGE: PageSpec = {
  table: 'mandates',
  alias: 'md',
  counter: { table: 'mandate_counts', keys: 'merchant_id, status' },
  columns: COLUMNS.split(',')
    .map((c) => `md.${c.trim()}`)
    .join(', '),
};

// The listing of one payer's mandates, and status when asked (no counter: the (merchant, document) index counts them,
// a payer has few). Parameters: merchant, document, status (null: any) twice; the page: then limit and offset.
const OF_CUSTOMER = `merchant_id = ?
     and customer_document = ?
     and (?::text is null or status = ?::text)`;
export const COUNT_OF_CUSTOMER = `
  select count(*) as total
    from mandates
   where ${OF_CUSTOMER}`;
export const PAGE_OF_CUSTOMER = `
  select ${COLUMNS}
    from mandates
   where ${OF_CUSTOMER}
   order by created_at desc, id desc
   limit ? offset ?`;

// The payload location of a QR journey's recurrence (GET /pix/rec/:recId): the mandate and its receiver.
export const REC_LOCATION = `
  select md.rec_id, md.status, md.customer_name, md.customer_document, md.contract, md.object, md.frequency,
         md.start_date, md.end_date, md.amount, md.min_amount, md.retry_policy, md.history, m.name as merchant_name,
         m.document as merchant_document
    from mandates md
    join merchants m on m.id = md.merchant_id
   where md.rec_id = ?
     and md.journey <> 'PUSH'`;
export type RecLocationRow = Pick<
  MandateRow,
  | 'rec_id'
  | 'status'
  | 'customer_name'
  | 'customer_document'
  | 'contract'
  | 'object'
  | 'frequency'
  | 'start_date'
  | 'end_date'
  | 'amount'
  | 'min_amount'
  | 'retry_policy'
  | 'history'
> & { merchant_name: string; merchant_document: string };
