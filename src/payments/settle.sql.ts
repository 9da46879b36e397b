// The settlement's statements (src/payments/settle.ts): the pay transition over the charges table, the terms a due-date
// charge's payment must meet, and the charge of a payment that paid nothing (declared `$n` statements: src/platform/
// sql.ts); the rows they return.
import { from, statement, to, type Transition } from '../platform/sql.ts';
import type { ChargeStatus, ChargeType } from '../charges/charge.entity.ts';
import { PAYER_NAME, type ChargeRow } from '../charges/charge-row.ts';

// PAY takes its row of CHARGE_TRANSITIONS (src/charges/charges.states.ts): `from` guards it, `to` is set.
type T = Transition<ChargeStatus>;

/**
 * pay: one UPDATE for notifications of distinct charges. Parameters:
 * arrays of txid, end_to_end_id, amount, paid_at, then, for a charge with a due date, whether the payment is the
 * amount due on its day (with the components the acquirer reported, if any), the fee on it, its components and its
 * splits resolved on its net amount, as JSON; null for an immediate charge, whose splits were resolved at creation.
 * Amounts as bigint: a payment may carry more than any charge, and then pays none.
 * The charges are locked first, in txid order (the UPDATE reaches a row only through `locked`), so two batches sharing
 * charges never wait on each other crosswise. A charge is paid by a payment of its amount (a due-date charge: of the
 * amount due on the payment's day) dated within its validity, when PENDING or when the expiry sweep canceled it after
 * the payment's time.
 */
export const PAY = (t: T) =>
  statement(
    'payments.pay',
    `
  with n as (
    select *
      from unnest($1::text[], $2::text[], $3::bigint[], $4::timestamptz[], $5::boolean[], $6::bigint[], $7::jsonb[],
                  $8::jsonb[])
           as n(txid, end_to_end_id, amount, paid_at, due_matches, due_fee, due_components, due_splits)
  ),
  locked as materialized (
    select c.id
      from charges c
     where c.txid in (select txid from n)
     order by c.txid
       for update of c
  ),
  paid as (
    update charges c set status = ${to(t)}, paid_at = n.paid_at, end_to_end_id = n.end_to_end_id,
                         canceled_at = null, paid_amount = n.amount, fee = coalesce(n.due_fee, c.fee),
                         components = n.due_components, splits = coalesce(n.due_splits, c.splits),
                         updated_at = now()
      from n
      join locked on true
     where locked.id = c.id and c.txid = n.txid and c.expires_at >= n.paid_at
       and case when c.type = 'DUE_DATE' then coalesce(n.due_matches, false) else c.amount = n.amount end
       and c.status in (${from(t)})
       and (c.status = 'PENDING' or (c.type <> 'RECURRING' and c.canceled_at >= n.paid_at))
    returning c.*
  )
  select paid.*, ${PAYER_NAME('paid')} as customer_name, cu.document as customer_document
    from paid
    left join customers cu on cu.id = paid.customer_id`,
  );

// pay: the terms of the charges with a due date among these txids (what a payment of them must be).
export const DUE_TERMS = statement(
  'payments.due_terms',
  `
  select txid, amount, due_date, rebate, discount, fine, interest, fee_bps, fee_fixed, splits
    from charges
   where txid = any($1::text[]) and type = 'DUE_DATE'`,
);
export type DueTermsRow = Pick<
  ChargeRow,
  'txid' | 'amount' | 'rebate' | 'discount' | 'fine' | 'interest' | 'splits'
> & {
  due_date: string;
  fee_bps: number;
  fee_fixed: number;
};

// Why a payment paid nothing: the charge of that txid, locked.
export const CHARGE_FOR_PAYMENT = statement(
  'payments.charge_for_payment',
  `
  select status, type, amount, expires_at, canceled_at, end_to_end_id
    from charges
   where txid = $1
     for update`,
);
export type ChargeForPayment = {
  status: ChargeStatus;
  type: ChargeType;
  amount: number;
  expires_at: Date;
  canceled_at: Date | null;
  end_to_end_id: string | null;
};
