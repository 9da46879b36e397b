// The unmatched_payments table: a received payment that could pay no charge.
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
  'UNSETTLED', // confirmed by the acquirer, but its settlement failed on every retry: booked here and returned
  'UNCONFIRMED', // the acquirer never answered for it on any retry: HELD, nothing booked
] as const;
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];
// HELD: kept for an operator, neither booked nor returned (settles normally should the acquirer confirm it later).
export const UNMATCHED_STATUSES = ['RETURNING', 'RETURNED', 'RETURN_FAILED', 'HELD'] as const;

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
    amount: p.bigint('number'), // a Pix's valor: up to the API Pix's 9 999 999 999.99
    paidAt: p.datetime(),
    reason: p.enum([...UNMATCHED_REASONS]),
    status: p.enum([...UNMATCHED_STATUSES]).default('RETURNING'),
  },
});
