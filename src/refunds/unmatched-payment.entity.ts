import { defineEntity, p } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Charge } from '../charges/charge.entity.ts';

// Why a received payment could pay no charge.
export const UNMATCHED_REASONS = [
  'UNKNOWN_CHARGE',
  'EXPIRED',
  'ALREADY_PAID',
  'NOT_PAYABLE',
  'AMOUNT_MISMATCH',
] as const;
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];
export const UNMATCHED_STATUSES = ['RETURNING', 'RETURNED', 'RETURN_FAILED'] as const;

// Money that reached the platform's account without paying a charge: held on the ledger's suspense account and
// returned to the payer by a devolução (refunds). Unique by endToEndId: one Pix is recorded once.
export const UnmatchedPayment = defineEntity({
  name: 'UnmatchedPayment',
  tableName: 'unmatched_payments',
  extends: BaseSchema,
  properties: {
    endToEndId: p.string().length(32).unique(),
    txid: p.string().length(35).nullable(),
    charge: () => p.manyToOne(Charge).nullable().index(),
    amount: p.integer(),
    paidAt: p.datetime(),
    reason: p.enum([...UNMATCHED_REASONS]),
    status: p.enum([...UNMATCHED_STATUSES]).default('RETURNING'),
  },
});
