// The refunds table: a devolução, a merchant's refund or an unmatched payment sent back.
import { defineEntity, p } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Charge } from '../charges/charge.entity.ts';
import { UnmatchedPayment } from './unmatched-payment.entity.ts';
import type { SplitShare } from '../money/refund-shares.ts';

export const REFUND_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED'] as const;

// A devolução: a received Pix sent back to its payer, either a merchant's refund of (part of) a PAID charge (charge;
// several may be PROCESSING at once) or the return of a payment that could pay no charge (unmatchedPayment). Final only when the acquirer says so; its id is the
// devolução id at the acquirer (without dashes), so a retry never returns the money twice.
export const Refund = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  extends: BaseSchema,
  uniques: [{ properties: ['merchant', 'idempotencyKey'] }],
  indexes: [
    {
      name: 'refunds_charge_created_idx',
      expression: `create index "refunds_charge_created_idx" on "refunds" ("charge_id", "created_at" desc, "id" desc) where "charge_id" is not null`,
    },
    {
      name: 'refunds_processing_idx',
      expression: `create index "refunds_processing_idx" on "refunds" ("updated_at") where "status" = 'PROCESSING'`,
    },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant).nullable().index(),
    charge: () => p.manyToOne(Charge).nullable().index(),
    unmatchedPayment: () => p.manyToOne(UnmatchedPayment).nullable().index(),
    endToEndId: p.string().length(32),
    amount: p.bigint('number'), // up to the API Pix's 9 999 999 999.99 (an unmatched payment's return)
    status: p.enum([...REFUND_STATUSES]).default('PROCESSING'),
    failureReason: p.string().length(255).nullable(),
    completedAt: p.datetime().nullable(),
    failedAt: p.datetime().nullable(),
    // what the platform gives back of the charge's fee (refunds.money.ts); the merchant gives amount - feeAmount
    feeAmount: p.integer().default(0),
    reason: p.string().length(140).nullable(), // the merchant's, sent to the payer as the devolução's descricao
    refundedBefore: p.integer().nullable(), // the charge's refundedAmount when this refund was created
    // reverseSplits: what each of the charge's split recipients gives back of it (null: the owner bears it all)
    splitShares: p.json<SplitShare[]>().nullable(),
    idempotencyKey: p.string().length(64).nullable(),
    requestHash: p.string().length(64).nullable(),
  },
});
