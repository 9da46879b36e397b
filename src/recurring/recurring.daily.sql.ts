// The statements of the day's Pix Automático jobs (recurring.daily.ts), declared `$n` statements run through ormSql:
// a batch of mandates due for their automatic charge (inserted with recurring-charges.sql.ts INSERT_RECURRING_CHARGES,
// as a merchant's are) and the expiries. They write the mandates and recurring_charges tables and the hidden `charges`
// rows (type RECURRING) that carry a recurring charge's money, and read merchants (the fee). The expiries are written
// from MANDATE_TRANSITIONS, REQUEST_FOLLOWS, RECURRING_CHARGE_TRANSITIONS (transitions.ts) and CHARGE_TRANSITIONS.
import { from, statement, to } from '../platform/sql.ts';
import { CHARGE_TRANSITIONS } from '../charges/charges.states.ts';
import { RECURRING_COLUMNS, RECURRING_JOINS } from '../charges/recurring.view.ts';
import type { AutoCharge } from './mandate.entity.ts';
import { MANDATE_TRANSITIONS, RECURRING_CHARGE_TRANSITIONS, REQUEST_FOLLOWS } from './transitions.ts';

// A mandate due for its automatic charge, locked, with what its charge needs.
export type DueMandateRow = {
  id: string;
  merchant_id: string;
  rec_id: string;
  customer_name: string;
  customer_document: string;
  frequency: 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
  start_date: string;
  end_date: string | null;
  amount: number | null;
  retry_policy: 'NONE' | 'THREE_IN_SEVEN_DAYS';
  object: string;
  location: string | null;
  auto_charge: AutoCharge;
  next_cycle: number;
  auto_charge_on: string | null;
  fee_bps: number | null;
  fee_fixed: number | null;
};

const DUE_COLUMNS = `m.id, m.merchant_id, m.rec_id, m.customer_name, m.customer_document, m.frequency,
         to_char(m.start_date, 'YYYY-MM-DD') as start_date, to_char(m.end_date, 'YYYY-MM-DD') as end_date, m.amount,
         m.retry_policy, m.object, m.location, m.auto_charge,
         m.next_cycle, to_char(m.auto_charge_on, 'YYYY-MM-DD') as auto_charge_on, me.fee_bps, me.fee_fixed`;

/**
 * APPROVED mandates with automatic charging whose next charge is due by `$1` (auto_charge_on <= day), or not planned
 * yet (approved since the last run: auto_charge_on null), at most `$2`, locked: another run skips them, and finds them
 * moved past the day once this one commits (the WHERE is checked again on the row it locks). Two statements, one per
 * branch, so each is a range of the partial index mandates_auto_charge_idx that stops at the batch's size. A blocked
 * merchant's mandates wait (not charged, not planned) until it is unblocked, then go on as after missed runs.
 */
export const UNPLANNED_MANDATES = statement(
  'recurring_daily.unplanned_mandates',
  `
  select ${DUE_COLUMNS}
    from mandates m
    join merchants me on me.id = m.merchant_id and me.status = 'ACTIVE'
   where m.status = 'APPROVED'
     and m.auto_charge is not null
     and m.auto_charge_on is null
   limit $1
     for update of m skip locked`,
);

export const DUE_MANDATES = statement(
  'recurring_daily.due_mandates',
  `
  select ${DUE_COLUMNS}
    from mandates m
    join merchants me on me.id = m.merchant_id and me.status = 'ACTIVE'
   where m.status = 'APPROVED'
     and m.auto_charge is not null
     and m.auto_charge_on <= $1::date
   order by m.auto_charge_on
   limit $2
     for update of m skip locked`,
);

// Where each mandate of the batch goes next: arrays of mandate id, next cycle, the day its charge is due.
export const PLAN_MANDATES = statement(
  'recurring_daily.plan_mandates',
  `
  update mandates m
     set next_cycle = n.next_cycle, auto_charge_on = n.auto_charge_on
    from unnest($1::uuid[], $2::int[], $3::date[]) as n(id, next_cycle, auto_charge_on)
   where m.id = n.id`,
);

/**
 * expire, up to `$3` mandates: CREATED ones not approved by `$1` (their expiresAt; a PUSH request still SENT expires
 * with them) and APPROVED ones past their end date (`$2`: the day, the end date before it), each locked (skipped when
 * another transaction holds it) and moved by the guarded UPDATE, EXPIRED in its history at `$4` (`$5` the same as
 * ISO text).
 */
const expireMandate = MANDATE_TRANSITIONS.expire;
const expireRequest = REQUEST_FOLLOWS.expire;
export const EXPIRE_MANDATES = statement(
  'recurring_daily.expire_mandates',
  `
  with unapproved as (
    select id
      from mandates
     where status = 'CREATED' and expires_at <= $1::timestamptz
     limit $3
  ),
  ended as (
    select id
      from mandates
     where status = 'APPROVED' and end_date is not null and end_date < $2::date
     limit $3
  ),
  locked as materialized (
    select m.id
      from mandates m
     where m.id = any(array(select id from unapproved) || array(select id from ended))
     limit $3
       for update of m skip locked
  )
  update mandates m
     set status = ${to(expireMandate)}, updated_at = $4,
         request_status = case when m.request_status in (${from(expireRequest)}) then ${to(expireRequest)}
                               else m.request_status end,
         history = m.history || jsonb_build_array(jsonb_build_object('status', ${to(expireMandate)}, 'at', $5::text))
    from locked
   where m.id = locked.id
     and m.status in (${from(expireMandate)})
     and ((m.status = 'CREATED' and m.expires_at <= $1::timestamptz)
          or (m.status = 'APPROVED' and m.end_date < $2::date))
  returning m.id, m.merchant_id, m.rec_id, m.journey, m.status, m.customer_name, m.customer_document, m.contract,
            m.object, m.frequency, to_char(m.start_date, 'YYYY-MM-DD') as start_date,
            to_char(m.end_date, 'YYYY-MM-DD') as end_date, m.amount, m.min_amount, m.payer_max_amount,
            m.retry_policy, m.expires_at, m.qr_code, m.location, m.charge_id, m.payer_account, m.request_status,
            m.request_id, m.auto_charge, m.cancellation, m.history, m.idempotency_key, m.request_hash, m.created_at`,
);

/**
 * expire, up to `$2` recurring charges CREATED or ACTIVE due on or before `$1` (the day - 8: unpaid by dueDate + 7):
 * their hidden charges locked first, in txid order (the lock order: a settlement holds the charge, then the recurring
 * charge; a charge being paid is skipped and its recurring charge found PAID by the guard later), then each recurring
 * charge EXPIRED by the guarded UPDATE with its SCHEDULED attempt CANCELED at `$3` (`$4` the same as ISO text), and
 * its hidden charge CANCELED. Returns the recurring charges as their view reads them.
 */
const expireCharge = RECURRING_CHARGE_TRANSITIONS.expire;
const cancelHidden = CHARGE_TRANSITIONS.expire;
export const EXPIRE_RECURRING_CHARGES = statement(
  'recurring_daily.expire_recurring_charges',
  `
  with due as (
    select charge_id
      from recurring_charges
     where status in (${from(expireCharge)}) and due_date <= $1::date
     order by due_date
     limit $2
  ),
  locked as materialized (
    select c.id
      from charges c
     where c.id in (select charge_id from due)
     order by c.txid
       for update of c skip locked
  ),
  expired as (
    update recurring_charges rc
       set status = ${to(expireCharge)}, updated_at = $3,
           attempts = (select coalesce(jsonb_agg(case when a->>'status' = 'SCHEDULED'
                                             then a || jsonb_build_object('status', 'CANCELED', 'at', $4::text)
                                             else a end order by i), '[]')
                         from (select * from jsonb_array_elements(rc.attempts) with ordinality) as x(a, i))
      from locked
     where rc.charge_id = locked.id
       and rc.status in (${from(expireCharge)})
       and rc.due_date <= $1::date
    returning rc.*
  ),
  hidden as (
    update charges c
       set status = ${to(cancelHidden)}, canceled_at = $3, updated_at = $3
      from expired
     where c.id = expired.charge_id
       and c.status in (${from(cancelHidden)})
    returning c.id
  )
  select ${RECURRING_COLUMNS}
    from expired rc
    ${RECURRING_JOINS}
   order by rc.due_date, rc.id`,
);
