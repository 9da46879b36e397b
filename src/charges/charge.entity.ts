import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Customer } from './customer.entity.ts';

export const CHARGE_STATUSES = ['PENDING', 'PAID', 'FAILED', 'CANCELED', 'REFUNDED'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

// fee is the platform's split, fixed when the charge is created; the merchant is credited amount - fee.
export const Charge = defineEntity({
  name: 'Charge',
  tableName: 'charges',
  extends: BaseSchema,
  uniques: [{ properties: ['merchant', 'idempotencyKey'] }],
  indexes: [
    { name: 'charges_merchant_created_idx', expression: 'create index "charges_merchant_created_idx" on "charges" ("merchant_id", "created_at" desc, "id" desc)' },
    { name: 'charges_merchant_status_created_idx', expression: 'create index "charges_merchant_status_created_idx" on "charges" ("merchant_id", "status", "created_at" desc, "id" desc)' },
    { name: 'charges_pending_expiry_idx', expression: `create index "charges_pending_expiry_idx" on "charges" ("expires_at") where "status" = 'PENDING'` },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant),
    txid: p.string().length(35).unique(),
    amount: p.integer(),
    fee: p.integer(),
    description: p.string().length(255),
    status: p.enum([...CHARGE_STATUSES]).default('PENDING'),
    expiresIn: p.integer(),
    expiresAt: p.datetime(),
    customer: () => p.manyToOne(Customer).nullable(),
    tracking: p.json<Record<string, string>>().nullable(),
    location: p.string().length(77),
    qrCode: p.text(),
    idempotencyKey: p.string().length(64).nullable(),
    requestHash: p.string().length(64).nullable(),
    endToEndId: p.string().length(32).nullable().unique(),
    paidAt: p.datetime().nullable(),
    canceledAt: p.datetime().nullable(),
    refundedAt: p.datetime().nullable(),
  },
});

export type ICharge = InferEntity<typeof Charge>;
