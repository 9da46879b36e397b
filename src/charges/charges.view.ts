// The API's view of a charge, and of its latest refund: one mapping for the entity, the values just inserted and raw
// rows (settlement, refund, listing). A charge shows its refund, so its view is here; src/refunds uses it too.
import { qrPngDataUrl } from '../pix/qr-png.ts';
import { payerText } from '../pix/text.ts';
import type { ICharge } from './charge.entity.ts';
import type { ICustomer } from './customer.entity.ts';
import type { ChargeRow, LocationRow, RefundViewRow } from './charges.sql.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const date = (v: string | null) => (v === null ? null : new Date(v));

export type ChargeViewOptions = { image?: boolean; tracking?: boolean };

// What a view needs: an entity or the plain values just inserted.
export type ChargeFields = Pick<
  ICharge,
  'id' | 'txid' | 'qrCode' | 'amount' | 'fee' | 'status' | 'description' | 'expiresIn' | 'createdAt' | 'expiresAt'
> &
  Partial<Pick<ICharge, 'tracking' | 'endToEndId' | 'paidAt' | 'canceledAt' | 'refundedAt' | 'payerName'>>;

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
    // the name this charge was created with, not the customer's latest
    customer: customer ? { id: customer.id, name: c.payerName ?? customer.name, document: customer.document } : null,
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

// A refund (devolução) as the API shows it: inside its charge, and as the answer to a refund request.
export const refundView = (r: RefundViewRow) => ({
  id: r.id,
  amount: r.amount,
  status: r.status,
  failureReason: r.failure_reason,
  createdAt: new Date(r.created_at).toISOString(),
  completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
  failedAt: r.failed_at ? new Date(r.failed_at).toISOString() : null,
});

// The creation's body, whatever happened to the charge since (an idempotent replay answers with it, contract).
export const creationView = (c: ICharge) =>
  chargeView(
    { ...c, status: 'PENDING', endToEndId: null, paidAt: null, canceledAt: null, refundedAt: null },
    c.customer ?? null,
    { image: true, tracking: true },
  );

// The payload location of a charge (GET /pix/qr/:txid), shaped like the API Pix cob.
export const locationView = (c: LocationRow) => ({
  txid: c.txid,
  revisao: 0,
  status:
    c.status === 'PENDING'
      ? 'ATIVA'
      : c.status === 'PAID' || c.status === 'REFUNDED'
        ? 'CONCLUIDA'
        : 'REMOVIDA_PELO_PSP',
  calendario: {
    criacao: new Date(c.created_at).toISOString(),
    apresentacao: new Date().toISOString(),
    expiracao: c.expires_in,
  },
  valor: { original: (c.amount / 100).toFixed(2) },
  chave: c.pix_key,
  solicitacaoPagador: payerText(c.description, 140),
  recebedor: { nome: payerText(c.merchant_name, 200) },
});
