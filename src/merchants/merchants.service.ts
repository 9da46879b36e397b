// The merchants' use cases and the platform fee of a payment.
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { effectiveFee, type FeeTerms } from '../money/money.ts';
import { AUTH_MESSAGES, NotFoundError } from '../platform/errors.ts';
import { Merchant, type IMerchant } from './merchant.entity.ts';
import { KYC_TRANSITIONS, moveKyc } from './merchants.states.ts';

// The platform's fee terms, for a merchant that has none of its own (PLATFORM_FEE_BPS, PLATFORM_FEE_FIXED).
export type FeeDefaults = FeeTerms;

// What `kyc:approve` and `acquirer:configure` (merchants.ops.ts) and the sandbox's onboarding change.
export function approveKyc(m: IMerchant): void {
  moveKyc(m, KYC_TRANSITIONS.approve);
}

export const ACQUIRER_ACCOUNT_ID = /^[\w.:-]{1,100}$/;
export const newSandboxAccountId = () => `sandbox-${randomBytes(6).toString('hex')}`;

// The receiving account: the given one, or a generated sandbox id; false (nothing set) while KYC is not approved.
export function configureAcquirerAccount(m: IMerchant, account = newSandboxAccountId()): boolean {
  if (m.kycStatus !== 'APPROVED') return false;
  m.acquirerAccountId = account;
  return true;
}

export const merchantView = (m: IMerchant, defaults: FeeDefaults) => ({
  id: m.id,
  name: m.name,
  document: m.document,
  status: m.status,
  kycStatus: m.kycStatus,
  acquirerConfigured: m.acquirerAccountId !== null && m.acquirerAccountId !== undefined,
  fee: effectiveFee(m, defaults),
  createdAt: m.createdAt.toISOString(),
});

export async function getMerchant(em: EntityManager, merchantId: string): Promise<IMerchant> {
  const m = await em.findOne(Merchant, { id: merchantId });
  if (!m) throw new NotFoundError(AUTH_MESSAGES.merchantNotFound);
  return m;
}

// GET /v1/merchants/me: the merchant record with its effective fee.
export async function getMerchantView(em: EntityManager, merchantId: string, defaults: FeeDefaults) {
  return merchantView(await getMerchant(em, merchantId), defaults);
}
