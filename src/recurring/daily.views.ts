// The views the day's expiry events carry (docs/openapi.yaml Mandate, RecurringCharge), until the mandates and charges
// modules' own views (mandates.view.ts, recurring-charges.view.ts) are merged and replace these.
import { qrPngDataUrl } from '../pix/qr-png.ts';
import { paymentUrl } from '../charges/charges.view.ts';
import type { MandateRow, RecurringChargeRow } from './recurring.daily.sql.ts';

const iso = (v: Date | string) => new Date(v).toISOString();

export const mandateView = (m: MandateRow, publicBaseUrl: string) => ({
  id: m.id,
  recId: m.rec_id,
  journey: m.journey,
  status: m.status,
  customer: { name: m.customer_name, document: m.customer_document },
  contract: m.contract,
  object: m.object,
  frequency: m.frequency,
  startDate: m.start_date,
  endDate: m.end_date,
  amount: m.amount,
  minAmount: m.min_amount,
  payerMaxAmount: m.payer_max_amount,
  retryPolicy: m.retry_policy,
  expiresAt: iso(m.expires_at),
  qrCode: m.qr_code,
  imageBase64: m.qr_code ? qrPngDataUrl(m.qr_code) : null,
  paymentUrl: m.charge_id ? paymentUrl(publicBaseUrl, m.charge_id) : null,
  chargeId: m.charge_id,
  autoCharge: m.auto_charge ? { amount: m.auto_charge.amount, leadDays: m.auto_charge.leadDays } : null,
  request: m.request_status ? { status: m.request_status } : null,
  cancellation: m.cancellation ? { by: m.cancellation.by, reason: m.cancellation.reason } : null,
  history: m.history.map((h) => ({ status: h.status, at: iso(h.at) })),
  createdAt: iso(m.created_at),
});

export const recurringChargeView = (r: RecurringChargeRow) => ({
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
    at: iso(a.at),
  })),
  retriesLeft: r.retries_left,
  paidAt: r.paid_at === null ? null : iso(r.paid_at),
  paidAmount: r.paid_amount,
  fee: r.fee,
  refundedAmount: r.refunded_amount,
  createdAt: iso(r.created_at),
});
