// Every statement of the recurring charges (declared `$n` statements run through ormSql; arrays bound as PostgreSQL
// arrays): the recurring_charges table, the mandate they charge, and the RECURRING charges row that carries each one's
// money. The status changes are written from RECURRING_CHARGE_TRANSITIONS (transitions.ts) and, for the charges row,
// CHARGE_TRANSITIONS (src/charges).
import type { PageSpec } from '../platform/counters.ts';
import { from, statement, to } from '../platform/sql.ts';
import { RECURRING_COLUMNS, RECURRING_JOINS } from '../charges/recurring.view.ts';
import { CHARGE_TRANSITIONS } from '../charges/charges.states.ts';
import { RECURRING_CHARGE_TRANSITIONS } from './transitions.ts';

const T = RECURRING_CHARGE_TRANSITIONS;

// The mandate a charge is created for, locked (the lock order: mandate, hidden charge, recurring charge), with its
// merchant's fee terms. Parameters: mandate id, merchant id.
export const LOCK_MANDATE = statement(
  'recurring_charges.lock_mandate',
  `
  select m.id, m.status, m.rec_id, m.frequency, to_char(m.start_date, 'YYYY-MM-DD') as start_date,
         to_char(m.end_date, 'YYYY-MM-DD') as end_date, m.amount, m.payer_max_amount, m.retry_policy,
         m.customer_name, m.customer_document, me.fee_bps, me.fee_fixed
    from mandates m
    join merchants me on me.id = m.merchant_id
   where m.id = $1 and m.merchant_id = $2
     for update of m`,
);
export type MandateForCharge = {
  id: string;
  status: string;
  rec_id: string;
  frequency: 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
  start_date: string;
  end_date: string | null;
  amount: number | null;
  payer_max_amount: number | null;
  retry_policy: 'NONE' | 'THREE_IN_SEVEN_DAYS';
  customer_name: string;
  customer_document: string;
  fee_bps: number | null;
  fee_fixed: number | null;
};

// Whether a cycle of a mandate has a live charge (not CANCELED, not FAILED). Parameters: mandate id, cycle.
export const LIVE_IN_CYCLE = statement(
  'recurring_charges.live_in_cycle',
  `
  select id
    from recurring_charges
   where mandate_id = $1 and cycle = $2::int and status not in ('CANCELED', 'FAILED')`,
);

/**
 * New recurring charges, each with its RECURRING charges row, in one statement for any number of them (the daily job
 * inserts a day's batch with it). A cycle that already has a live charge is skipped (the partial unique index
 * recurring_charges_one_live_per_cycle, `do nothing`), and so is its charges row; returns the ids inserted. Parameters,
 * one array each (JS arrays; attempts as JSON text): id, charge_id, merchant_id, mandate_id, txid, cycle, due_date, amount, description,
 * status, attempts (JSON), retries_left, automatic, idempotency_key, request_hash, fee, fee_bps, fee_fixed,
 * expires_at, expires_in. The charges row: PENDING, the same txid and amount, its fee frozen, no QR code or location
 * (the payer's PSP debits it), `description` the recurring charge's ('' without one).
 */
export const INSERT_RECURRING_CHARGES = statement(
  'recurring_charges.insert',
  `
  with n as (
    select *
      from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::date[], $8::int[],
                  $9::text[], $10::text[], $11::jsonb[], $12::int[], $13::boolean[], $14::text[], $15::text[],
                  $16::int[], $17::int[], $18::int[], $19::timestamptz[], $20::int[])
           as n(id, charge_id, merchant_id, mandate_id, txid, cycle, due_date, amount, description, status, attempts,
                retries_left, automatic, idempotency_key, request_hash, fee, fee_bps, fee_fixed, expires_at,
                expires_in)
  ),
  rc as (
    insert into recurring_charges (id, created_at, updated_at, merchant_id, mandate_id, charge_id, txid, cycle,
                                   due_date, amount, description, status, attempts, retries_left, automatic,
                                   idempotency_key, request_hash)
    select id, now(), now(), merchant_id, mandate_id, charge_id, txid, cycle, due_date, amount, description, status,
           attempts, retries_left, automatic, idempotency_key, request_hash
      from n
        on conflict (mandate_id, cycle)
     where status not in ('CANCELED', 'FAILED')
        do nothing
    returning id, charge_id
  ),
  ch as (
    insert into charges (id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in,
                         expires_at, location, qr_code, type, fee_bps, fee_fixed)
    select n.charge_id, now(), now(), n.merchant_id, n.txid, n.amount, n.fee, coalesce(n.description, ''), 'PENDING',
           n.expires_in, n.expires_at, '', '', 'RECURRING', n.fee_bps, n.fee_fixed
      from n
      join rc on rc.charge_id = n.charge_id
    returning id
  )
  select rc.id
    from rc`,
);

// A recurring charge as its view reads it. Parameters: id, merchant id.
export const BY_ID = statement(
  'recurring_charges.by_id',
  `
  select ${RECURRING_COLUMNS}
    from recurring_charges rc
    ${RECURRING_JOINS}
   where rc.id = $1 and rc.merchant_id = $2`,
);

// The creation an idempotency key made, with its request hash. Parameters: merchant id, key.
export const BY_KEY = statement(
  'recurring_charges.by_key',
  `
  select ${RECURRING_COLUMNS}, rc.request_hash
    from recurring_charges rc
    ${RECURRING_JOINS}
   where rc.merchant_id = $1 and rc.idempotency_key = $2`,
);

// The RECURRING charges row of a recurring charge, locked first (the lock order). Parameters: id, merchant id.
export const LOCK_HIDDEN_BY_ID = statement(
  'recurring_charges.lock_hidden_by_id',
  `
  select ch.id
    from charges ch
   where ch.id = (
           select charge_id
             from recurring_charges
            where id = $1 and merchant_id = $2
         )
     for update of ch`,
);

// The same by txid (the PSP's word, the sandbox's attempt). Parameter: txid.
export const LOCK_HIDDEN_BY_TXID = statement(
  'recurring_charges.lock_hidden_by_txid',
  `
  select ch.id
    from charges ch
   where ch.txid = $1 and ch.type = 'RECURRING'
     for update of ch`,
);

// The recurring charge of a charges row, locked after it, with its mandate's policy and payer's maximum. Parameter:
// the charges row's id.
export const LOCK_BY_CHARGE = statement(
  'recurring_charges.lock_by_charge',
  `
  select ${RECURRING_COLUMNS}, m.retry_policy, m.payer_max_amount
    from recurring_charges rc
    ${RECURRING_JOINS}
   where rc.charge_id = $1
     for update of rc`,
);
export type LockedRow = { retry_policy: 'NONE' | 'THREE_IN_SEVEN_DAYS'; payer_max_amount: number | null };

/**
 * A transition with the attempts as they become (computed under the row's lock): the guarded UPDATE of the state
 * table's row. Parameters: attempts (JSON), retries_left, id.
 */
const move = (t: 'activate' | 'fail' | 'cancel') =>
  statement(
    `recurring_charges.${t}`,
    `
  update recurring_charges set status = ${to(T[t])}, attempts = $1::jsonb, retries_left = $2::int, updated_at = now()
   where id = $3 and status in (${from(T[t])})
  returning id`,
  );
export const MOVE = { activate: move('activate'), fail: move('fail'), cancel: move('cancel') };

// The attempts change, the status stays (an attempt failed with retries left, a retry scheduled). Parameters:
// attempts (JSON), retries_left, id, then the statuses it must be in (an array).
export const SET_ATTEMPTS = statement(
  'recurring_charges.set_attempts',
  `
  update recurring_charges set attempts = $1::jsonb, retries_left = $2::int, updated_at = now()
   where id = $3 and status = any($4::text[])
  returning id`,
);

// A recurring charge ended (FAILED, CANCELED, EXPIRED): its charges row is CANCELED with it (CHARGE_TRANSITIONS'
// expire: PENDING -> CANCELED), so a later payment pays nothing and is returned to its payer. Parameter: the charges
// row's id.
const HIDDEN = CHARGE_TRANSITIONS.expire;
export const CANCEL_HIDDEN = statement(
  'recurring_charges.cancel_hidden',
  `
  update charges set status = ${to(HIDDEN)}, canceled_at = now(), updated_at = now()
   where id = $1 and type = 'RECURRING' and status in (${from(HIDDEN)})`,
);

/**
 * pay: the recurring charges of RECURRING rows a settlement just paid, PAID with what the payment paid and their
 * SCHEDULED attempt PAID (its endToEndId, at the payment's time), with their view. Parameters (arrays): the charges
 * row's id, end_to_end_id, paid_at, paid_amount, fee, the attempt's `at` (ISO).
 */
export const PAY = statement(
  'recurring_charges.pay',
  `
  with n as (
    select *
      from unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::int[], $5::int[], $6::text[])
           as n(charge_id, end_to_end_id, paid_at, paid_amount, fee, at)
  ),
  rc as (
    update recurring_charges r
       set status = ${to(T.pay)}, paid_at = n.paid_at, paid_amount = n.paid_amount, fee = n.fee,
           attempts = (
             select coalesce(jsonb_agg(case when a ->> 'status' = 'SCHEDULED'
                                            then a || jsonb_build_object('status', 'PAID', 'endToEndId', n.end_to_end_id, 'at', n.at)
                                            else a end
                                       order by i), '[]'::jsonb)
               from jsonb_array_elements(r.attempts)
               with ordinality as x(a, i)
           ),
           updated_at = now()
      from n
     where r.charge_id = n.charge_id and r.status in (${from(T.pay)})
    returning r.*
  )
  select ${RECURRING_COLUMNS}
    from rc
    ${RECURRING_JOINS}`,
);

// The listing (countedPage): the merchant's recurring charges, optionally of one status.
export const RECURRING_CHARGE_PAGE: PageSpec = {
  table: 'recurring_charges',
  alias: 'rc',
  counter: { table: 'recurring_charge_counts', keys: 'merchant_id, status' },
  columns: RECURRING_COLUMNS,
  joins: RECURRING_JOINS,
};

// The listing of one mandate's charges (few: one per cycle), counted directly. Parameters: merchant id, mandate id,
// status (null: any), then limit, offset.
export const MANDATE_TOTAL = statement(
  'recurring_charges.mandate_total',
  `
  select count(*) as total
    from recurring_charges
   where merchant_id = $1 and mandate_id = $2 and ($3::text is null or status = $3::text)`,
);
export const MANDATE_PAGE = statement(
  'recurring_charges.mandate_page',
  `
  select ${RECURRING_COLUMNS}
    from recurring_charges rc
    ${RECURRING_JOINS}
   where rc.merchant_id = $1 and rc.mandate_id = $2 and ($3::text is null or rc.status = $3::text)
   order by rc.created_at desc, rc.id desc
   limit $4 offset $5`,
);

// Cancelling a mandate: its charges still CREATED or ACTIVE due after `today`, their charges rows locked in txid
// order (the lock order: mandate, hidden charges, recurring charges). Parameters: mandate id, today.
export const LOCK_OPEN_OF_MANDATE = statement(
  'recurring_charges.lock_open_of_mandate',
  `
  select ch.id
    from charges ch
    join recurring_charges rc on rc.charge_id = ch.id
   where rc.mandate_id = $1 and rc.status in ('CREATED', 'ACTIVE') and rc.due_date > $2::date
   order by ch.txid
     for update of ch`,
);

// The payer's maximum of a mandate (the sandbox's attempt). Parameter: mandate id.
export const PAYER_MAX = statement(
  'recurring_charges.payer_max',
  `
  select payer_max_amount
    from mandates
   where id = $1`,
);
