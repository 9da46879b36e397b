// Every statement of the refunds module (declared `$n` statements, run through ormSql) and the rows they return: the
// refunds and unmatched_payments tables, and the charge a refund reads (locked, with its payer, and its split).
import { from, statement, to, type Transition } from '../platform/sql.ts';
import { PAYER_NAME, type MerchantChargeRow } from '../charges/charge-row.ts';
import type { SplitShare } from '../money/refund-shares.ts';

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
  fee_amount: number; // what the platform gives back of the fee (refunds.money.ts)
  reason: string | null;
  refunded_before: number | null; // the charge's refunded_amount when it was created
  idempotency_key: string | null;
  request_hash: string | null;
  split_shares: SplitShare[] | null; // reverseSplits: what each recipient gives back (refunds.money.ts)
};

// The amount columns are bigint (a payment's valor reaches the API Pix's 9 999 999 999.99), which node-postgres reads
// as text: every refunds or unmatched_payments row read here is given its number back by refundRow / unmatchedRow.
type Raw<T extends { amount: number }> = Omit<T, 'amount'> & { amount: number | string };
export const refundRow = (r: Raw<RefundRow>): RefundRow => ({ ...r, amount: Number(r.amount) });

// A new devolução, PROCESSING. Parameters: id, merchant_id, charge_id, unmatched_payment_id, end_to_end_id, amount,
// fee_amount, reason, refunded_before, idempotency_key, request_hash, split_shares.
// split_shares: JSON.stringify'ed, or null.
export const INSERT_REFUND = statement(
  'refunds.insert_refund',
  `
  insert into refunds (id, created_at, updated_at, merchant_id, charge_id, unmatched_payment_id, end_to_end_id, amount,
                       fee_amount, reason, refunded_before, idempotency_key, request_hash, split_shares, status)
  values ($1, now(), now(), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, 'PROCESSING')
  returning *`,
);

// What a charge's refunds took back or are taking back (COMPLETED and PROCESSING): the amount, and the platform's share
// of it (the fee given back). Read with the charge locked.
export const REFUNDS_TAKEN = statement(
  'refunds.refunds_taken',
  `
  select coalesce(sum(amount), 0) as amount, coalesce(sum(fee_amount), 0) as fee
    from refunds
   where charge_id = $1 and status in ('PROCESSING', 'COMPLETED')`,
);

// The refunds of a charge that reverse its splits (COMPLETED and PROCESSING), with what each recipient gave back.
export const SPLITS_REVERSED = statement(
  'refunds.splits_reversed',
  `
  select amount, split_shares
    from refunds
   where charge_id = $1 and status in ('PROCESSING', 'COMPLETED') and split_shares is not null`,
);

// A refunds row as a refund's view reads it (refunds.view.ts; RefundRow is a superset).
export type RefundViewRow = {
  id: string;
  amount: number | string; // bigint: node-postgres reads it as text
  reason: string | null;
  status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
  failure_reason: string | null;
  created_at: string;
  completed_at: string | null;
  failed_at: string | null;
  split_shares: { merchantId: string; amount: number }[] | null;
};

// The latest refund of a charge (GET /v1/charges/:id shows it: latestRefund, refunds.service.ts).
export const LATEST_REFUND = statement(
  'refunds.latest_refund',
  `
  select *
    from refunds
   where charge_id = $1
   order by created_at desc, id desc
   limit 1`,
);

// A charge's refunds, newest first (GET /v1/charges/:id/refunds).
export const CHARGE_REFUNDS = statement(
  'refunds.charge_refunds',
  `
  select *
    from refunds
   where charge_id = $1
   order by created_at desc, id desc`,
);

// The refund a merchant created with this idempotency key (parameters: merchant id, key).
export const REFUND_BY_KEY = statement(
  'refunds.refund_by_key',
  `
  select *
    from refunds
   where merchant_id = $1 and idempotency_key = $2`,
);

// A refund's outcome, once, written from its transition (REFUND_TRANSITIONS, refunds.states.ts, which declares them).
// Parameters: id, then reason (FAIL only).
type RefundT = Transition<RefundRow['status']>;
export const COMPLETE_REFUND = (t: RefundT) =>
  statement(
    'refunds.complete_refund',
    `
  update refunds set status = ${to(t)}, completed_at = now(), updated_at = now()
   where id = $1 and status in (${from(t)})
  returning *`,
  );
export const FAIL_REFUND = (t: RefundT) =>
  statement(
    'refunds.fail_refund',
    `
  update refunds set status = ${to(t)}, failed_at = now(), failure_reason = $2, updated_at = now()
   where id = $1 and status in (${from(t)})
  returning *`,
  );

// Still in progress: marks the time of the last word from the acquirer, so reconciliation waits again.
export const TOUCH_REFUND = statement(
  'refunds.touch_refund',
  `
  update refunds set updated_at = now()
   where id = $1 and status = 'PROCESSING'`,
);

export const REFUND_BY_ID = statement(
  'refunds.refund_by_id',
  `
  select *
    from refunds
   where id = $1`,
);

// Refunds in progress with no word for a while (reconciliation), oldest first, paged by id.
export const STALE_REFUNDS = statement(
  'refunds.stale_refunds',
  `
  select *
    from refunds
   where status = 'PROCESSING' and updated_at < $1 and id > $2
   order by id
   limit 100`,
);

export type UnmatchedRow = {
  id: string;
  end_to_end_id: string;
  txid: string | null;
  charge_id: string | null;
  amount: number;
  paid_at: string;
  reason: string;
  status: 'RETURNING' | 'RETURNED' | 'RETURN_FAILED' | 'HELD';
  created_at: string;
  updated_at: string;
};

export const unmatchedRow = <R extends Raw<UnmatchedRow>>(r: R): R & UnmatchedRow => ({
  ...r,
  amount: Number(r.amount),
});

// A payment that paid nothing, once per endToEndId (a redelivery inserts nothing); a HELD record of the same Pix (the
// acquirer had not confirmed it) becomes this one, by `t` (UNMATCHED_TRANSITIONS.confirm, HELD -> RETURNING).
// Parameters: id, end_to_end_id, txid, amount, paid_at, reason.
export const INSERT_UNMATCHED = (t: Transition<UnmatchedRow['status']>) =>
  statement(
    'refunds.insert_unmatched',
    `
  insert into unmatched_payments (id, created_at, updated_at, end_to_end_id, txid, charge_id, amount, paid_at, reason,
                                  status)
  values ($1, now(), now(), $2, $3::text, (select id from charges where txid = $3::text), $4, $5, $6, 'RETURNING')
      on conflict (end_to_end_id) do update set txid = excluded.txid, charge_id = excluded.charge_id,
                                                amount = excluded.amount, paid_at = excluded.paid_at,
                                                reason = excluded.reason, status = ${to(t)}, updated_at = now()
   where unmatched_payments.status in (${from(t)})
  returning *`,
  );

// A notification the acquirer never confirmed, HELD for an operator as it was notified (nothing booked), once.
// Parameters: id, end_to_end_id, txid, amount, paid_at.
export const INSERT_HELD = statement(
  'refunds.insert_held',
  `
  insert into unmatched_payments (id, created_at, updated_at, end_to_end_id, txid, charge_id, amount, paid_at, reason,
                                  status)
  values ($1, now(), now(), $2, $3::text, (select id from charges where txid = $3::text), $4, $5, 'UNCONFIRMED', 'HELD')
      on conflict (end_to_end_id) do nothing
  returning *`,
);

// The HELD records of Pix that have now paid their charge: they were only a notice. Parameter: an array of e2eids.
export const RELEASE_HELD = statement(
  'refunds.release_held',
  `
  delete from unmatched_payments
   where end_to_end_id = any($1::text[]) and status = 'HELD'`,
);

// An unmatched payment's return settled (parameter: id), written from its transition (UNMATCHED_TRANSITIONS).
export const SETTLE_UNMATCHED = (name: string, t: Transition<UnmatchedRow['status']>) =>
  statement(
    `refunds.${name}`,
    `
  update unmatched_payments set status = ${to(t)}, updated_at = now()
   where id = $1 and status in (${from(t)})
  returning *`,
  );

// payments:unmatched (operators), newest first, with the state of their return. Parameters: a status (null: every
// one), the limit.
export const UNMATCHED_LIST = statement(
  'refunds.unmatched_list',
  `
  select u.*, r.id as refund_id, r.status as refund_status, r.failure_reason as refund_failure_reason
    from unmatched_payments u
    left join lateral (
           select *
             from refunds r
            where r.unmatched_payment_id = u.id
            order by r.created_at desc
            limit 1
         ) r on true
   where ($1::text is null or u.status = $1)
   order by u.created_at desc, u.id desc
   limit $2`,
);

// refunds:failed (operators): merchants' refunds the acquirer did not make (their hold went back).
export const FAILED_REFUNDS = statement(
  'refunds.failed_refunds',
  `
  select r.*, c.txid
    from refunds r
    left join charges c on c.id = r.charge_id
   where r.status = 'FAILED' and r.charge_id is not null and r.failed_at >= $1
   order by r.failed_at desc
   limit $2`,
);

// A merchant's charge with its payer (parameters: charge id, merchant id, recurring); CHARGE_FOR_REFUND locks it (a refund
// request serialises on it, as a refund's completion and an infraction do).
export type ChargeForRefund = MerchantChargeRow & { refunded_amount: number };
// The last parameter says which kind: a charge (false) or the RECURRING row of a recurring charge (true).
const MERCHANT_CHARGE_TEXT = `
  select c.*, ${PAYER_NAME('c')} as customer_name, cu.document as customer_document
    from charges c
    left join customers cu on cu.id = c.customer_id
   where c.id = $1 and c.merchant_id = $2 and (c.type = 'RECURRING') = $3::boolean`;
export const MERCHANT_CHARGE = statement('refunds.merchant_charge', MERCHANT_CHARGE_TEXT);
export const CHARGE_FOR_REFUND = statement(
  'refunds.charge_for_refund',
  `${MERCHANT_CHARGE_TEXT}
     for update of c`,
);

// The charge of a refund, locked before the refund changes (the lock order, docs/architecture.md: charge, refunds,
// infractions, ledger accounts), with its split (a refund's hold is released with it). No row for an unmatched payment.
export type ChargeOfRefund = { id: string; fee: number; merchant_id: string };
export const LOCK_CHARGE_OF_REFUND = statement(
  'refunds.lock_charge_of_refund',
  `
  select c.id, c.fee, c.merchant_id
    from charges c
   where c.id = (
           select charge_id
             from refunds
            where id = $1
         )
     for update of c`,
);
