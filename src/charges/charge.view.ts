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
