// A Pix Automático recurring charge as the API and its events show it (components RecurringCharge), pure. It lives
// with the charges because a charges row of type RECURRING carries the recurring charge's money: the charges module
// records `recurring_charge.refunded` when one of its refunds (or MED) completes, and src/recurring (above it in the
// layers) shows it everywhere else with the same function.

export type RecurringAttemptRow = {
  date: string;
  kind: 'DUE_DATE' | 'RETRY';
  status: 'SCHEDULED' | 'PAID' | 'REJECTED' | 'CANCELED';
  failureCode: string | null;
  endToEndId: string | null;
  at: string;
};

// A recurring_charges row (snake_case) with its mandate's recId and its charges row's refundedAmount.
export type RecurringChargeRow = {
  id: string;
  merchant_id: string;
  mandate_id: string;
  charge_id: string;
  rec_id: string;
  txid: string;
  cycle: number;
  due_date: string;
  amount: number;
  description: string | null;
  status: 'CREATED' | 'ACTIVE' | 'PAID' | 'FAILED' | 'CANCELED' | 'EXPIRED';
  attempts: RecurringAttemptRow[];
  retries_left: number;
  paid_at: Date | string | null;
  paid_amount: number | null;
  fee: number | null;
  refunded_amount: number;
  created_at: Date | string;
};

/**
 * The columns of a RecurringChargeRow, read from `recurring_charges rc` joined with `mandates m` and `charges ch`
 * (`RECURRING_JOINS`).
 */
export const RECURRING_COLUMNS = `rc.id, rc.merchant_id, rc.mandate_id, rc.charge_id, m.rec_id, rc.txid, rc.cycle,
         to_char(rc.due_date, 'YYYY-MM-DD') as due_date, rc.amount, rc.description, rc.status, rc.attempts,
         rc.retries_left, rc.paid_at, rc.paid_amount, rc.fee, ch.refunded_amount, rc.created_at`;
export const RECURRING_JOINS = `left join mandates m on m.id = rc.mandate_id
    left join charges ch on ch.id = rc.charge_id`;

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

export function recurringChargeView(r: RecurringChargeRow) {
  return {
    id: r.id,
    txid: r.txid,
    mandateId: r.mandate_id,
    recId: r.rec_id,
    cycle: r.cycle,
    dueDate: r.due_date,
    amount: r.amount,
    description: r.description,
    status: r.status,
    attempts: r.attempts.map((a) => ({
      date: a.date,
      kind: a.kind,
      status: a.status,
      failureCode: a.failureCode,
      endToEndId: a.endToEndId,
      at: a.at,
    })),
    retriesLeft: r.retries_left,
    paidAt: iso(r.paid_at),
    paidAmount: r.paid_amount,
    fee: r.fee,
    refundedAmount: Number(r.refunded_amount),
    createdAt: iso(r.created_at)!,
  };
}
