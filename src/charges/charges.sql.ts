// Every statement of the charges module (declared `$n` statements: src/platform/sql.ts) and the rows they return: the charges and customers tables (the settlement's pay is src/payments'
// settle.sql.ts; the latest refund a charge shows, src/refunds').
import type { PageSpec } from '../platform/counters.ts';
import { from, statement, to, type Transition } from '../platform/sql.ts';
import { LISTED, type ChargeStatus } from './charge.entity.ts';
import { PAYER_NAME, type ChargeRow } from './charge-row.ts';
import { RECURRING_COLUMNS, RECURRING_JOINS } from './recurring.view.ts';

// A transition's statement takes its row of CHARGE_TRANSITIONS (charges.states.ts): `from` guards it, `to` is set.
type T = Transition<ChargeStatus>;

// The columns a charge's view reads beyond the immediate charge's (the listing names them with its alias).
const DUE_DATE_COLUMNS = (a: string) =>
  `${a}.type, ${a}.due_date, ${a}.validity_after_due_days, ${a}.rebate, ${a}.discount, ${a}.fine, ${a}.interest,
         ${a}.paid_amount, ${a}.components, ${a}.splits`;

const CHARGE_COLUMNS = `id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in,
  expires_at, customer_id, payer_name, payer_email, payer_phone, tracking, location, qr_code, idempotency_key,
  request_hash, type, due_date, validity_after_due_days, rebate, discount, fine, interest, fee_bps, fee_fixed, splits`;

// The prerequisites, checked inside the insert itself: no charge can slip in after KYC, the acquirer account or the
// last PIX key went away, whatever the timing. `merchant`: the placeholder of the merchant's id.
const ONBOARDED = (merchant: string) => `exists (
         select 1
           from merchants m
          where m.id = ${merchant} and m.kyc_status = 'APPROVED' and m.acquirer_account_id is not null)
     and exists (select 1 from pix_keys k where k.merchant_id = ${merchant} and k.status = 'ACTIVE')`;

// A new charge without a payer, guarded by the prerequisites. Parameters: the 26 values of CHARGE_COLUMNS but the
// customer and payer's (the guard reads the merchant's, `$4`).
export const INSERT_CHARGE = statement(
  'charges.insert_charge',
  `
  insert into charges (${CHARGE_COLUMNS})
  select $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, null, null, null, null, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26
   where ${ONBOARDED('$4')}
  returning id`,
);

// A new charge with its payer, upserted per (merchant, document), in one statement guarded by the prerequisites. The
// charge keeps the payer's name, email and phone as given now (c.name...: the customer's latest, the same values).
export const INSERT_CHARGE_WITH_CUSTOMER = statement(
  'charges.insert_charge_with_customer',
  `
  with c as (
    insert into customers (id, created_at, updated_at, merchant_id, name, document, email, phone)
    select $1, now(), now(), $2, $3, $4, $5, $6
     where ${ONBOARDED('$2')}
        on conflict (merchant_id, document) do update set name = excluded.name,
                                                         email = coalesce(excluded.email, customers.email),
                                                         phone = coalesce(excluded.phone, customers.phone),
                                                         updated_at = now()
    returning id, name, document
  ),
  ins as (
    insert into charges (${CHARGE_COLUMNS})
    select $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, c.id, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35
      from c
  )
  select id, name, document
    from c`,
);

// Which prerequisite is missing (only asked after the guarded insert refused).
export const PREREQUISITES = statement(
  'charges.prerequisites',
  `
  select kyc_status, acquirer_account_id,
         exists (select 1 from pix_keys k where k.merchant_id = m.id and k.status = 'ACTIVE') as has_pix_key
    from merchants m
   where m.id = $1`,
);

// The merchants named as split recipients (parameter: an array of ids), with what makes them fit to receive one.
export const RECIPIENTS = statement(
  'charges.recipients',
  `
  select id, status, kyc_status
    from merchants
   where id = any($1::uuid[])`,
);
export type RecipientRow = { id: string; status: string; kyc_status: string };

// The charges listing (countedPage): the charge and its payer; never a RECURRING row (the money of a recurring charge,
// src/recurring), which the counter does not count either and the partial indexes leave out.
export const CHARGE_PAGE: PageSpec = {
  table: 'charges',
  alias: 'ch',
  rows: LISTED,
  counter: { table: 'charge_counts', keys: 'merchant_id, status' },
  columns: `ch.id, ch.txid, ch.qr_code, ch.amount, ch.fee, ch.status, ch.description, ch.expires_in, ch.created_at,
         ch.expires_at, ch.end_to_end_id, ch.paid_at, ch.canceled_at, ch.refunded_at, ch.refunded_amount,
         ${DUE_DATE_COLUMNS('ch')},
         cu.id as customer_id, ${PAYER_NAME('ch')} as customer_name, cu.document as customer_document`,
  joins: 'left join customers cu on cu.id = ch.customer_id',
};

// One charge of a merchant, as the listing reads it, with its tracking (GET /v1/charges/:id, the sandbox's pay): a
// statement read outside any transaction, on the ORM's pool: `$1` the charge's id, `$2` the merchant's. Never a
// RECURRING row.
export const CHARGE_BY_ID = statement(
  'charges.charge_by_id',
  `
  select ${CHARGE_PAGE.columns}, ch.tracking
    from charges ch
    ${CHARGE_PAGE.joins}
   where ch.id = $1 and ch.merchant_id = $2 and ch.${LISTED}`,
);

// expire, one charge (a payment dated after its expiry arrived before the sweep).
export const EXPIRE_ONE = (t: T) =>
  statement(
    'charges.expire_one',
    `
  update charges set status = ${to(t)}, canceled_at = expires_at, updated_at = now()
   where txid = $1 and status in (${from(t)})`,
  );

// expire, the sweep: charges a settlement holds locked are skipped (SKIP LOCKED), so it never waits on, nor deadlocks
// with, a batch of payments; what it skips is decided by that settlement or by the next sweep. A RECURRING row is
// left to its recurring charge (src/recurring: CANCELED with it).
export const EXPIRE_DUE = (t: T) =>
  statement(
    'charges.expire_due',
    `
  update charges set status = ${to(t)}, canceled_at = expires_at, updated_at = now()
   where id in (
           select id
             from charges
            where status in (${from(t)}) and expires_at <= now() and ${LISTED}
              for update skip locked
         )
     and status in (${from(t)})
  returning id, txid, type`,
  );

// A refund of the charge completed (parameters: its amount, three times, then the charge id): refunded_amount grows by
// it, and the charge is refunded (the transition) when that reaches what was paid; with its payer. In SET, the row's
// columns are its values before the update.
export const ADD_REFUND = (t: T) =>
  statement(
    'charges.add_refund',
    `
  with r as (
    update charges set refunded_amount = refunded_amount + $1,
                       status = case when status in (${from(t)})
                                      and refunded_amount + $2 >= coalesce(paid_amount, amount)
                                     then ${to(t)} else status end,
                       refunded_at = case when status in (${from(t)})
                                           and refunded_amount + $3 >= coalesce(paid_amount, amount)
                                          then now() else refunded_at end,
                       updated_at = now()
     where id = $4
    returning *
  )
  select r.*, ${PAYER_NAME('r')} as customer_name, cu.document as customer_document
    from r
    left join customers cu on cu.id = r.customer_id`,
  );

// refund (an accepted MED infraction): the charge, if still PAID (parameter: id), with its payer.
export const REFUND = (t: T) =>
  statement(
    'charges.refund',
    `
  with r as (
    update charges set status = ${to(t)}, refunded_at = now(), updated_at = now()
     where id = $1 and status in (${from(t)})
    returning *
  )
  select r.*, ${PAYER_NAME('r')} as customer_name, cu.document as customer_document
    from r
    left join customers cu on cu.id = r.customer_id`,
  );

// The payload location of a charge (GET /pix/qr/:txid): the charge, its merchant's name and first ACTIVE PIX key,
// and (a due date) its terms and payer.
export const LOCATION = statement(
  'charges.location',
  `
  select c.txid, c.status, c.created_at, c.expires_in, c.amount, c.description, m.name as merchant_name,
         (select k.key
            from pix_keys k
           where k.merchant_id = c.merchant_id and k.status = 'ACTIVE'
           order by k.created_at
           limit 1) as pix_key,
         c.type, c.due_date, c.validity_after_due_days, c.rebate, c.discount, c.fine, c.interest,
         ${PAYER_NAME('c')} as payer_name, cu.document as payer_document
    from charges c
    join merchants m on m.id = c.merchant_id
    left join customers cu on cu.id = c.customer_id
   where c.txid = $1 and c.${LISTED}`,
);
export type LocationRow = Pick<
  ChargeRow,
  'txid' | 'status' | 'created_at' | 'expires_in' | 'amount' | 'description' | 'type' | 'due_date'
> &
  Pick<ChargeRow, 'validity_after_due_days' | 'rebate' | 'discount' | 'fine' | 'interest'> & {
    merchant_name: string;
    pix_key: string | null;
    payer_name: string | null;
    payer_document: string | null;
  };

// The recurring charge a RECURRING row carries the money of (parameter: the charges row's id), as its view reads it.
export const RECURRING_OF_CHARGE = statement(
  'charges.recurring_of_charge',
  `
  select ${RECURRING_COLUMNS}
    from recurring_charges rc
    ${RECURRING_JOINS}
   where rc.charge_id = $1`,
);
