// The merchants table: a user's merchant, its KYC, acquirer account and fees.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { User } from '../auth/user.entity.ts';

export const MERCHANT_STATUSES = ['ACTIVE', 'BLOCKED'] as const;
export const KYC_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;

// A merchant belongs to exactly one user. Fee columns are null while the platform defaults apply.
export const Merchant = defineEntity({
  name: 'Merchant',
  tableName: 'merchants',
  extends: BaseSchema,
  properties: {
    user: () => p.oneToOne(User).owner().unique(),
    name: p.string().length(100),
    document: p.string().length(14),
    // the BR Code names the receiver's city (field 60)
    city: p.string().length(60).default('SAO PAULO'),
    status: p.enum([...MERCHANT_STATUSES]).default('ACTIVE'),
    kycStatus: p.enum([...KYC_STATUSES]).default('PENDING'),
    acquirerAccountId: p.string().length(100).nullable(),
    feeBps: p.integer().nullable(),
    feeFixed: p.integer().nullable(),
  },
});

export type IMerchant = InferEntity<typeof Merchant>;
