import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { isUuid } from '../platform/base.entity.ts';
import { Charge, type ChargeStatus } from '../charges/charge.entity.ts';
import { chargeView, type ChargeView } from '../charges/charges.view.ts';
import * as sql from './payment-page.sql.ts';

// What a payer may see, and nothing more: no customer, fee, tracking or internal id besides the charge's own.
export type PaymentPage = {
  charge: ChargeView & DueDateFields;
  merchantName: string;
  status: ChargeStatus;
};
// Due-date charges (cobv) add these to the charge's view; the page shows them when they are there.
type DueDateFields = { type?: string; dueDate?: string | null; amountDue?: number | null };

// A PENDING charge past its expiry is shown as the sweep will soon record it (within a minute): CANCELED.
const effectiveStatus = (status: ChargeStatus, expiresAt: Date) =>
  status === 'PENDING' && expiresAt.getTime() <= Date.now() ? 'CANCELED' : status;

// GET /pay/:id: the charge as its API view shows it (so every field a charge gains reaches the page), and its
// merchant's name. Null for an unknown or malformed id.
export async function paymentPage(
  deps: Pick<Services, 'config'>,
  em: EntityManager,
  id: string,
): Promise<PaymentPage | null> {
  if (!isUuid(id)) return null;
  const charge = await em.findOne(Charge, { id }, { populate: ['merchant'] });
  if (!charge) return null;
  return {
    charge: chargeView(charge, null, { publicBaseUrl: deps.config.publicBaseUrl }),
    merchantName: charge.merchant.name,
    status: effectiveStatus(charge.status, charge.expiresAt),
  };
}

// GET /pay/:id/status: the status alone, by primary key. Null for an unknown or malformed id.
export async function paymentStatus(em: EntityManager, id: string): Promise<ChargeStatus | null> {
  if (!isUuid(id)) return null;
  const [row] = await em.execute<sql.PaymentStatusRow[]>(sql.PAYMENT_STATUS, [id]);
  return row ? effectiveStatus(row.status, new Date(row.expires_at)) : null;
}
