// Every statement on the mandates table (declared `$n` statements, run through ormSql), with its rows. Reads the
// merchants, pix_keys and charges tables for a new mandate's prerequisites, its DUE_DATE_QR charge and its recurrence's
// location. Its status and its PUSH request's changes are written from MANDATE_TRANSITIONS and
// MANDATE_REQUEST_TRANSITIONS (transitions.ts).
import type { PageSpec } from '../platform/counters.ts';
import { from, statement, to } from '../platform/sql.ts';
import type { AutoCharge, MandateCancellation, MandateHistory, MandateStatus, PayerAccount } from './mandate.entity.ts';
import {
  MANDATE_REQUEST_TRANSITIONS,
  MANDATE_TRANSITIONS,
  REQUEST_FOLLOWS,
  type RequestStatus,
} from './transitions.ts';

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
  request_status: RequestStatus | null;
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
export const MERCHANT_FOR_MANDATE = statement(
  'mandates.merchant_for_mandate',
  `
  select m.document, m.kyc_status, m.acquirer_account_id,
         exists (select 1 from pix_keys k where k.merchant_id = m.id and k.status = 'ACTIVE') as has_pix_key
    from merchants m
   where m.id = $1`,
);
export type MerchantForMandate = {
  document: string;
  kyc_status: string;
  acquirer_account_id: string | null;
  has_pix_key: boolean;
};

// DUE_DATE_QR: the charge the approval pays, when it is a PENDING due-date charge of the merchant whose payer is the
// mandate's customer and no live mandate already pays it. Parameters: charge id, merchant id, customer document.
export const DUE_DATE_CHARGE = statement(
  'mandates.due_date_charge',
  `
  select c.id, c.txid, c.amount
    from charges c
    join customers cu on cu.id = c.customer_id
   where c.id = $1::uuid
     and c.merchant_id = $2::uuid
     and c.type = 'DUE_DATE'
     and c.status = 'PENDING'
     and cu.document = $3::text
     and not exists (select 1 from mandates x where x.charge_id = c.id and x.status in ('CREATED', 'APPROVED'))`,
);

// A new mandate, guarded by its merchant's prerequisites (as a charge's insert is): none slips in after the CNPJ, KYC,
// the acquirer account or the last PIX key went away. Parameters: the 27 values ($4, the merchant id, guards it too).
export const INSERT_MANDATE = statement(
  'mandates.insert',
  `
  insert into mandates (id, created_at, updated_at, merchant_id, rec_id, journey, status, customer_name,
                        customer_document, contract, object, frequency, start_date, end_date, amount, min_amount,
                        retry_policy, expires_at, qr_code, location, charge_id, payer_account, request_status,
                        request_id, auto_charge, history, idempotency_key, request_hash)
  select $1::uuid, $2::timestamptz, $3::timestamptz, $4::uuid, $5::text, $6::text, 'CREATED', $7::text, $8::text,
         $9::text, $10::text, $11::text, $12::date, $13::date, $14::int, $15::int, $16::text, $17::timestamptz,
         $18::text, $19::text, $20::uuid, $21::jsonb, $22::text, $23::text, $24::jsonb, $25::jsonb, $26::text, $27::text
   where exists (
         select 1
           from merchants m
          where m.id = $4::uuid and length(m.document) = 14 and m.kyc_status = 'APPROVED'
            and m.acquirer_account_id is not null)
     and exists (select 1 from pix_keys k where k.merchant_id = $4::uuid and k.status = 'ACTIVE')
  returning ${COLUMNS}`,
);

export const BY_ID = statement(
  'mandates.by_id',
  `
  select ${COLUMNS}
    from mandates
   where id = $1`,
);

export const OF_MERCHANT = statement(
  'mandates.of_merchant',
  `
  select ${COLUMNS}
    from mandates
   where id = $1
     and merchant_id = $2`,
);

export const BY_IDEMPOTENCY_KEY = statement(
  'mandates.by_idempotency_key',
  `
  select ${COLUMNS}
    from mandates
   where merchant_id = $1
     and idempotency_key = $2`,
);

export const LOCK = statement(
  'mandates.lock',
  `
  select ${COLUMNS}
    from mandates
   where id = $1
     for update`,
);

export const ID_BY_REC_ID = statement(
  'mandates.id_by_rec_id',
  `
  select id
    from mandates
   where rec_id = $1`,
);

const M = MANDATE_TRANSITIONS;
type Move = keyof typeof M;

/**
 * A mandate's transition: the status, its history entry (`$1`: its time) and its PUSH request's (REQUEST_FOLLOWS: the
 * request still SENT is accepted with the approval, rejected with the rejection, cancelled or expired with the mandate);
 * the guard on `$2`, the id. approve also sets payer_max_amount (`$3`), cancel the cancellation (`$3`, JSON).
 */
const move = (t: Move, extra: string) =>
  statement(
    `mandates.${t}`,
    `
  update mandates set status = ${to(M[t])},
         history = history || jsonb_build_array(jsonb_build_object('status', ${to(M[t])}, 'at', $1::text)),
         request_status = case when request_status in (${from(REQUEST_FOLLOWS[t])}) then ${to(REQUEST_FOLLOWS[t])}
                               else request_status end,
         updated_at = now()${extra}
   where id = $2
     and status in (${from(M[t])})
  returning ${COLUMNS}`,
  );
export const APPROVE = move('approve', ', payer_max_amount = $3::int');
export const REJECT = move('reject', '');
export const CANCEL = move('cancel', ', cancellation = $3::jsonb');

const R = MANDATE_REQUEST_TRANSITIONS;

/**
 * A PUSH mandate's request, set by the PSP's word (apipix) or the sandbox: a REQUEST_REPORTED transition, from any other
 * status or none. Parameters: its `to`, the id, its `from` (an array).
 */
export const SET_REQUEST_STATUS = statement(
  'mandates.set_request_status',
  `
  update mandates set request_status = $1::text, updated_at = now()
   where id = $2
     and journey = 'PUSH'
     and (request_status is null or request_status = any($3::text[]))
  returning ${COLUMNS}`,
);

// send: a new request to the payer's PSP while the mandate is CREATED and its last request EXPIRED or was REJECTED.
// Parameters: request id, id.
export const NEW_REQUEST = statement(
  'mandates.new_request',
  `
  update mandates set request_status = ${to(R.send)}, request_id = $1, updated_at = now()
   where id = $2
     and journey = 'PUSH'
     and status = 'CREATED'
     and request_status in (${from(R.send)})
  returning ${COLUMNS}`,
);

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
// a payer has few). Parameters: merchant, document, status (null: any); the page: then limit and offset.
const OF_CUSTOMER = `merchant_id = $1
     and customer_document = $2
     and ($3::text is null or status = $3::text)`;
export const COUNT_OF_CUSTOMER = statement(
  'mandates.count_of_customer',
  `
  select count(*) as total
    from mandates
   where ${OF_CUSTOMER}`,
);
export const PAGE_OF_CUSTOMER = statement(
  'mandates.page_of_customer',
  `
  select ${COLUMNS}
    from mandates
   where ${OF_CUSTOMER}
   order by created_at desc, id desc
   limit $4 offset $5`,
);

// The payload location of a QR journey's recurrence (GET /pix/rec/:recId): the mandate and its receiver.
export const REC_LOCATION = statement(
  'mandates.rec_location',
  `
  select md.rec_id, md.status, md.customer_name, md.customer_document, md.contract, md.object, md.frequency,
         md.start_date, md.end_date, md.amount, md.min_amount, md.retry_policy, md.history, m.name as merchant_name,
         m.document as merchant_document
    from mandates md
    join merchants m on m.id = md.merchant_id
   where md.rec_id = $1
     and md.journey <> 'PUSH'`,
);
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
