// Every statement on the charges and customers tables (run through MikroORM: `?` parameters), with the rows they return
// and the mapping of those rows to the API's view of a charge.
import type { PageSpec } from '../platform/counters.ts';
import { qrPngDataUrl } from '../pix/qr-png.ts';
import type { ICharge } from './charge.entity.ts';
import type { ICustomer } from './customer.entity.ts';
import type { ChargeStatus } from './charge.entity.ts';

// The guards take the statuses a transition may start from (`from`, the table of charges.states.ts): constants, never
// input.
type From = readonly ChargeStatus[];
const statuses = (from: From) => from.map((s) => `'${s}'`).join(', ');

// A charges row read with plain SQL (snake_case, timestamps as strings), joined with its customer's columns.
export type ChargeRow = {
  id: string;
  txid: string;
  qr_code: string;
  amount: number;
  fee: number;
  status: ChargeStatus;
  description: string;
  expires_in: number;
  created_at: string;
  expires_at: string;
  tracking?: Record<string, string> | null;
  end_to_end_id: string | null;
  paid_at: string | null;
  canceled_at: string | null;
  refunded_at: string | null;
  customer_id: string | null;
  customer_name: string | null;
  customer_document: string | null;
};
export type MerchantChargeRow = ChargeRow & { merchant_id: string };

const CHARGE_COLUMNS = `id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in,
    expires_at,
  customer_id, tracking, location, qr_code, idempotency_key, request_hash`;

// The prerequisites, checked inside the insert itself: no charge can slip in after KYC, the acquirer account or the
// last PIX key went away, whatever the timing. Parameters: merchant id twice.
const ONBOARDED = `exists (select 1 from merchants m where m.id = ? and m.kyc_status = 'APPROVED' and
    m.acquirer_account_id is not null)
  and exists (select 1 from pix_keys k where k.merchant_id = ? and k.status = 'ACTIVE')`;

// A new charge without a payer, guarded by the prerequisites. Parameters: the 16 values of CHARGE_COLUMNS but the
// customer, then the guard's.
export const INSERT_CHARGE = `insert into charges (${CHARGE_COLUMNS})
  select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?, ?, ?, ?, ? where ${ONBOARDED} returning id`;

// A new charge with its payer, upserted per (merchant, document), in one statement guarded by the prerequisites.
export const INSERT_CHARGE_WITH_CUSTOMER = `with c as (
    insert into customers (id, created_at, updated_at, merchant_id, name, document, email, phone)
    select ?, now(), now(), ?, ?, ?, ?, ? where ${ONBOARDED}
    on conflict (merchant_id, document) do update set name = excluded.name, email = coalesce(excluded.email,
    customers.email),
      phone = coalesce(excluded.phone, customers.phone), updated_at = now()
    returning id, name, document)
  , ins as (insert into charges (${CHARGE_COLUMNS}) select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, c.id, ?, ?, ?, ?, ? from c)
  select id, name, document from c`;

// Which prerequisite is missing (only asked after the guarded insert refused).
export const PREREQUISITES = `select kyc_status, acquirer_account_id,
    exists (select 1 from pix_keys k where k.merchant_id = m.id and k.status = 'ACTIVE') as has_pix_key
  from merchants m where m.id = ?`;

// The charges listing (countedPage): the charge and its payer.
export const CHARGE_PAGE: PageSpec = {
  table: 'charges',
  alias: 'ch',
  counter: { table: 'charge_counts', keys: 'merchant_id, status' },
  columns: `ch.id, ch.txid, ch.qr_code, ch.amount, ch.fee, ch.status, ch.description, ch.expires_in, ch.created_at,
      ch.expires_at,
    ch.end_to_end_id, ch.paid_at, ch.canceled_at, ch.refunded_at, cu.id as customer_id, cu.name as customer_name,
    cu.document as customer_document`,
  joins: 'left join customers cu on cu.id = ch.customer_id',
};

/**
 * pay: one UPDATE for notifications of distinct charges (parameters: arrays of txid, end_to_end_id, amount, paid_at).
 * The charges are locked first, in txid order (the UPDATE reaches a row only through `locked`), so two batches sharing
 * charges never wait on each other crosswise. A charge is paid by a payment of its amount dated within its validity,
 * when PENDING or when the expiry sweep canceled it after the payment's time.
 */
export const PAY = (
  from: From,
) => `with n as (select * from unnest(?::text[], ?::text[], ?::int[], ?::timestamptz[]) as n(txid, end_to_end_id,
    amount, paid_at)),
  locked as materialized (select c.id from charges c where c.txid in (select txid from n) order by c.txid for update of
  c),
  paid as (
    update charges c set status = 'PAID', paid_at = n.paid_at, end_to_end_id = n.end_to_end_id, canceled_at = null,
    updated_at = now()
      from n join locked on true
     where locked.id = c.id and c.txid = n.txid and c.amount = n.amount and c.expires_at >= n.paid_at
       and c.status in (${statuses(from)}) and (c.status = 'PENDING' or c.canceled_at >= n.paid_at)
    returning c.*)
  select paid.*, cu.name as customer_name, cu.document as customer_document from paid left join customers cu on cu.id =
  paid.customer_id`;

// Why a payment paid nothing: the charge of that txid, locked.
export const CHARGE_FOR_PAYMENT =
  'select status, amount, expires_at, canceled_at, end_to_end_id from charges where txid = ? for update';
export type ChargeForPayment = {
  status: ChargeStatus;
  amount: number;
  expires_at: Date;
  canceled_at: Date | null;
  end_to_end_id: string | null;
};

// expire, one charge (a payment dated after its expiry arrived before the sweep).
export const EXPIRE_ONE = (
  from: From,
) => `update charges set status = 'CANCELED', canceled_at = expires_at, updated_at = now()
  where txid = ? and status in (${statuses(from)})`;

// expire, the sweep: charges a settlement holds locked are skipped (SKIP LOCKED), so it never waits on, nor deadlocks
// with, a batch of payments; what it skips is decided by that settlement or by the next sweep.
export const EXPIRE_DUE = (
  from: From,
) => `update charges set status = 'CANCELED', canceled_at = expires_at, updated_at = now()
  where id in (select id from charges where status in (${statuses(from)}) and expires_at <= now() for update skip
  locked)
    and status in (${statuses(from)})
  returning id, txid`;

// refund (completion): the charge, if still PAID (parameter: id), with its payer.
export const REFUND = (from: From) => `with r as (
    update charges set status = 'REFUNDED', refunded_at = now(), updated_at = now()
     where id = ? and status in (${statuses(from)})
    returning *)
  select r.*, cu.name as customer_name, cu.document as customer_document
  from r left join customers cu on cu.id = r.customer_id`;

// The split of a charge (a refund's hold is released with it).
export const CHARGE_FEE = 'select fee, merchant_id from charges where id = ?';

// A merchant's charge, locked (a refund request serialises on it), with its payer.
export const CHARGE_FOR_REFUND = `select c.*, cu.name as customer_name, cu.document as customer_document
  from charges c left join customers cu on cu.id = c.customer_id where c.id = ? and c.merchant_id = ? for update of c`;

// --- refunds (devoluções) and unmatched payments -------------------------------------------------------------------

export type RefundRow = {
  id: string;
  merchant_id: string | null;
  charge_id: string | null;
  unmatched_payment_id: string | null;
  end_to_end_id: string;
  amount: number;
  status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  failed_at: string | null;
};

export const INSERT_REFUND = `insert into refunds (id, created_at, updated_at, merchant_id, charge_id, unmatched_payment_id,
    end_to_end_id, amount, status)
  values (?, now(), now(), ?, ?, ?, ?, ?, 'PROCESSING') returning *`;

// A refund's outcome, once (guarded by `from`, the table of src/refunds/refunds.states.ts). Parameters: reason (FAIL only), id.
type RefundFrom = readonly RefundRow['status'][];
export const COMPLETE_REFUND = (from: RefundFrom) => `update refunds set status = 'COMPLETED', completed_at = now(),
  updated_at = now() where id = ? and status in (${from.map((s) => `'${s}'`).join(', ')}) returning *`;
export const FAIL_REFUND = (
  from: RefundFrom,
) => `update refunds set status = 'FAILED', failed_at = now(), failure_reason = ?,
  updated_at = now() where id = ? and status in (${from.map((s) => `'${s}'`).join(', ')}) returning *`;
// Still in progress: marks the time of the last word from the acquirer, so reconciliation waits again.
export const TOUCH_REFUND = `update refunds set updated_at = now() where id = ? and status = 'PROCESSING'`;

export const REFUND_BY_ID = 'select * from refunds where id = ?';

// Refunds in progress with no word for a while (reconciliation), oldest first, paged by id.
export const STALE_REFUNDS = `select * from refunds where status = 'PROCESSING' and updated_at < ? and id > ?
  order by id limit 100`;

// The latest refund of a charge (its view).
export const LATEST_REFUND = `select * from refunds where charge_id = ? order by created_at desc, id desc limit 1`;

export type UnmatchedRow = {
  id: string;
  end_to_end_id: string;
  txid: string | null;
  charge_id: string | null;
  amount: number;
  paid_at: string;
  reason: string;
  status: 'RETURNING' | 'RETURNED' | 'RETURN_FAILED';
  created_at: string;
  updated_at: string;
};

// A payment that paid nothing, once per endToEndId (a redelivery inserts nothing).
export const INSERT_UNMATCHED = `insert into unmatched_payments (id, created_at, updated_at, end_to_end_id, txid, charge_id,
    amount, paid_at, reason, status)
  values (?, now(), now(), ?, ?, (select id from charges where txid = ?), ?, ?, ?, 'RETURNING')
  on conflict (end_to_end_id) do nothing returning *`;

// An unmatched payment's return settled (parameters: the new status, id), guarded by `from`.
export const SETTLE_UNMATCHED = (from: readonly UnmatchedRow['status'][]) => `update unmatched_payments set status = ?,
  updated_at = now() where id = ? and status in (${from.map((s) => `'${s}'`).join(', ')}) returning *`;

// The endToEndIds among these that the service already knows (paid a charge, or recorded as unmatched).
export const KNOWN_PAYMENTS = `select end_to_end_id from charges where end_to_end_id = any(?::text[])
  union select end_to_end_id from unmatched_payments where end_to_end_id = any(?::text[])`;

// payments:unmatched (operators), newest first, with the state of their return.
export const UNMATCHED_LIST = (where: string) => `select u.*, r.id as refund_id, r.status as refund_status,
    r.failure_reason as refund_failure_reason
  from unmatched_payments u
  left join lateral (select * from refunds r where r.unmatched_payment_id = u.id order by r.created_at desc limit 1) r
    on true
  ${where} order by u.created_at desc, u.id desc limit ?`;

// refunds:failed (operators): merchants' refunds the acquirer did not make (the charge is PAID again).
export const FAILED_REFUNDS = `select r.*, c.txid from refunds r left join charges c on c.id = r.charge_id
  where r.status = 'FAILED' and r.charge_id is not null and r.failed_at >= ? order by r.failed_at desc limit ?`;

export const refundView = (r: RefundRow) => ({
  id: r.id,
  amount: r.amount,
  status: r.status,
  failureReason: r.failure_reason,
  createdAt: new Date(r.created_at).toISOString(),
  completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
  failedAt: r.failed_at ? new Date(r.failed_at).toISOString() : null,
});

// The payload location of a charge (GET /pix/qr/:txid): the charge, its merchant's name and first ACTIVE PIX key.
export const LOCATION = `select c.txid, c.status, c.created_at, c.expires_in, c.amount, c.description, m.name as
    merchant_name,
    (select k.key from pix_keys k where k.merchant_id = c.merchant_id and k.status = 'ACTIVE' order by k.created_at
    limit 1) as pix_key
  from charges c join merchants m on m.id = c.merchant_id where c.txid = ?`;
export type LocationRow = {
  txid: string;
  status: ChargeStatus;
  created_at: string;
  expires_in: number;
  amount: number;
  description: string;
  merchant_name: string;
  pix_key: string | null;
};

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const date = (v: string | null) => (v === null ? null : new Date(v));

export type ChargeViewOptions = { image?: boolean; tracking?: boolean };

// What a view needs: an entity or the plain values just inserted.
export type ChargeFields = Pick<
  ICharge,
  'id' | 'txid' | 'qrCode' | 'amount' | 'fee' | 'status' | 'description' | 'expiresIn' | 'createdAt' | 'expiresAt'
> &
  Partial<Pick<ICharge, 'tracking' | 'endToEndId' | 'paidAt' | 'canceledAt' | 'refundedAt'>>;

// The charge as the API returns it. Lists and webhook payloads leave out the image (it is derived from qrCode).
export function chargeView(
  c: ChargeFields,
  customer: Pick<ICustomer, 'id' | 'name' | 'document'> | null,
  opts: ChargeViewOptions = {},
) {
  return {
    id: c.id,
    txid: c.txid,
    qrCode: c.qrCode,
    ...(opts.image ? { imageBase64: qrPngDataUrl(c.qrCode) } : {}),
    amount: c.amount,
    fee: c.fee,
    netAmount: c.amount - c.fee,
    status: c.status,
    description: c.description,
    expiresIn: c.expiresIn,
    customer: customer ? { id: customer.id, name: customer.name, document: customer.document } : null,
    ...(opts.tracking ? { tracking: c.tracking ?? null } : {}),
    endToEndId: c.endToEndId ?? null,
    createdAt: iso(c.createdAt),
    expiresAt: iso(c.expiresAt),
    paidAt: iso(c.paidAt),
    canceledAt: iso(c.canceledAt),
    refundedAt: iso(c.refundedAt),
  };
}

export type ChargeView = ReturnType<typeof chargeView>;

// The API view of a raw row: one mapping for every SQL path (settlement, refund, listing).
export function chargeRowView(r: ChargeRow, opts: ChargeViewOptions = {}): ChargeView {
  const fields: ChargeFields = {
    id: r.id,
    txid: r.txid,
    qrCode: r.qr_code,
    amount: r.amount,
    fee: r.fee,
    status: r.status,
    description: r.description,
    expiresIn: r.expires_in,
    createdAt: date(r.created_at)!,
    expiresAt: date(r.expires_at)!,
    tracking: r.tracking ?? null,
    endToEndId: r.end_to_end_id,
    paidAt: date(r.paid_at),
    canceledAt: date(r.canceled_at),
    refundedAt: date(r.refunded_at),
  };
  const customer = r.customer_id ? { id: r.customer_id, name: r.customer_name!, document: r.customer_document! } : null;
  return chargeView(fields, customer, opts);
}

// MED (the infractions module's table, read here so a refund and an infraction never both take a charge's money): an
// open infraction on the charge; a merchant's available balance and what its open infractions are still owed.
export const OPEN_INFRACTION = `select 1 from infractions where charge_id = ? and status in ('OPEN', 'UNDER_REVIEW')`;
export const AVAILABLE_AND_OWED = `select (select balance from ledger_accounts where code = ?) as balance,
  (select coalesce(sum(shortfall), 0) from infractions where merchant_id = ? and status in ('OPEN', 'UNDER_REVIEW'))
  as owed`;
export const MERCHANTS_OWED = `select distinct merchant_id from infractions
  where merchant_id = any(?::uuid[]) and status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0`;
