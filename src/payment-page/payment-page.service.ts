// What the payer's page shows: the charge, its merchant, and a Pix Automático mandate's terms.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { isUuid } from '../platform/base.entity.ts';
import { Charge, type ChargeStatus } from '../charges/charge.entity.ts';
import { chargeView, type ChargeView } from '../charges/charges.view.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import { stripFormatChars } from '../pix/text.ts';
import * as sql from './payment-page.sql.ts';
import { ormSql } from '../platform/sql.ts';

// The terms of the Pix Automático mandate a charge's payment also approves (QR_WITH_PAYMENT, DUE_DATE_QR), and the
// BR Code that carries both the payment and the recurrence (field 80), shown instead of the charge's own.
export type MandateTerms = {
  contract: string;
  object: string;
  frequency: sql.MandateOfChargeRow['frequency'];
  startDate: string;
  endDate: string | null;
  amount: number | null;
  minAmount: number | null;
  qrCode: string;
};

// What the page is rendered from; it shows the payer only what it needs (no customer, fee, tracking or other id).
export type PaymentPage = {
  charge: ChargeView;
  merchantName: string;
  status: ChargeStatus;
  mandate?: MandateTerms | null;
};

// A PENDING charge past its expiry is shown as the sweep will soon record it (within a minute): CANCELED.
const effectiveStatus = (status: ChargeStatus, expiresAt: Date, now: Date) =>
  status === 'PENDING' && expiresAt.getTime() <= now.getTime() ? 'CANCELED' : status;

// GET /pay/:id: the charge as its API view shows it (so every field a charge gains reaches the page; a due-date
// charge's amountDue is today's), and its merchant's name. Null for an unknown or malformed id.
export async function paymentPage(
  deps: Pick<Services, 'config' | 'clock'>,
  em: EntityManager,
  id: string,
): Promise<PaymentPage | null> {
  if (!isUuid(id)) return null;
  // a RECURRING row (the money of a recurring charge) has no page
  const charge = await em.findOne(Charge, { id, type: { $ne: 'RECURRING' } }, { populate: ['merchant'] });
  if (!charge) return null;
  const now = deps.clock();
  const [mandate] = await ormSql(em).query<sql.MandateOfChargeRow>(sql.MANDATE_OF_CHARGE, [id]);
  const view = chargeView(charge, null, { publicBaseUrl: deps.config.publicBaseUrl, today: saoPauloDate(now) });
  // stored before format characters were stripped at the door, they would still reach the payer here
  return {
    charge: { ...view, description: stripFormatChars(view.description) },
    merchantName: stripFormatChars(charge.merchant.name),
    status: effectiveStatus(charge.status, charge.expiresAt, now),
    mandate: mandate ? termsOf(mandate) : null,
  };
}

const termsOf = (m: sql.MandateOfChargeRow): MandateTerms => ({
  contract: stripFormatChars(m.contract),
  object: stripFormatChars(m.object),
  frequency: m.frequency,
  startDate: m.start_date,
  endDate: m.end_date,
  amount: m.amount,
  minAmount: m.min_amount,
  qrCode: m.qr_code,
});

// GET /pay/:id/status: the status alone, by primary key. Null for an unknown or malformed id.
export async function paymentStatus(
  deps: Pick<Services, 'clock'>,
  em: EntityManager,
  id: string,
): Promise<ChargeStatus | null> {
  if (!isUuid(id)) return null;
  const [row] = await ormSql(em).query<sql.PaymentStatusRow>(sql.PAYMENT_STATUS, [id]);
  return row ? effectiveStatus(row.status, new Date(row.expires_at), deps.clock()) : null;
}
