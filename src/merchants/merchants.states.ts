// Every status change of a merchant: its account (blocked by an operator) and its KYC (an operator's decision, or the
// sandbox's onboarding). No event: neither is one of the merchant's webhooks.
import type { Transition } from '../platform/sql.ts';
import { KYC_STATUSES, MERCHANT_STATUSES, type IMerchant } from './merchant.entity.ts';

type MerchantStatus = (typeof MERCHANT_STATUSES)[number];
type KycStatus = (typeof KYC_STATUSES)[number];

export const MERCHANT_TRANSITIONS = {
  block: { from: MERCHANT_STATUSES, to: 'BLOCKED', event: null },
  unblock: { from: MERCHANT_STATUSES, to: 'ACTIVE', event: null },
} as const satisfies Record<string, Transition<MerchantStatus>>;

// An operator may decide again (approve a rejected KYC, or reject an approved one); the sandbox's onboarding never
// approves a REJECTED one (src/payments/sandbox.onboarding.ts asks first).
export const KYC_TRANSITIONS = {
  approve: { from: KYC_STATUSES, to: 'APPROVED', event: null },
  reject: { from: KYC_STATUSES, to: 'REJECTED', event: null },
} as const satisfies Record<string, Transition<KycStatus>>;

// A merchant's account status moved by its row of MERCHANT_TRANSITIONS (false: not from one of its `from`).
export function moveMerchant(m: IMerchant, t: Transition<MerchantStatus>): boolean {
  if (!t.from.includes(m.status)) return false;
  m.status = t.to;
  return true;
}

// A merchant's KYC moved by its row of KYC_TRANSITIONS (false: not from one of its `from`).
export function moveKyc(m: IMerchant, t: Transition<KycStatus>): boolean {
  if (!t.from.includes(m.kycStatus)) return false;
  m.kycStatus = t.to;
  return true;
}
