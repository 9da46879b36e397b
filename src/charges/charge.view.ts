import type { ICharge } from './charge.entity.ts';
import type { ICustomer } from './customer.entity.ts';
import { qrPngDataUrl } from './qr-png.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export type ChargeViewOptions = { image?: boolean; tracking?: boolean };

// What a view needs: an entity or the plain values just inserted.
export type ChargeFields = Pick<ICharge, 'id' | 'txid' | 'qrCode' | 'amount' | 'fee' | 'status' | 'description' | 'expiresIn' | 'createdAt' | 'expiresAt'>
  & Partial<Pick<ICharge, 'tracking' | 'endToEndId' | 'paidAt' | 'canceledAt' | 'refundedAt'>>;

// The charge as the API returns it. Lists and webhook payloads leave out the image (it is derived from qrCode).
export function chargeView(c: ChargeFields, customer: Pick<ICustomer, 'id' | 'name' | 'document'> | null, opts: ChargeViewOptions = {}) {
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

// A charges row read with plain SQL (snake_case, timestamps as strings), joined with its customer's columns.
export type ChargeRow = {
  id: string; txid: string; qr_code: string; amount: number; fee: number; status: ICharge['status']; description: string;
  expires_in: number; created_at: string; expires_at: string; tracking?: Record<string, string> | null; end_to_end_id: string | null;
  paid_at: string | null; canceled_at: string | null; refunded_at: string | null;
  customer_id: string | null; customer_name: string | null; customer_document: string | null;
};

const date = (v: string | null) => (v === null ? null : new Date(v));

// The API view of such a row: one mapping for every raw-SQL path (settlement, listing).
export function chargeRowView(r: ChargeRow, opts: ChargeViewOptions = {}) {
  const fields: ChargeFields = {
    id: r.id, txid: r.txid, qrCode: r.qr_code, amount: r.amount, fee: r.fee, status: r.status, description: r.description,
    expiresIn: r.expires_in, createdAt: date(r.created_at)!, expiresAt: date(r.expires_at)!, tracking: r.tracking ?? null,
    endToEndId: r.end_to_end_id, paidAt: date(r.paid_at), canceledAt: date(r.canceled_at), refundedAt: date(r.refunded_at),
  };
  const customer = r.customer_id ? { id: r.customer_id, name: r.customer_name!, document: r.customer_document! } : null;
  return chargeView(fields, customer, opts);
}
