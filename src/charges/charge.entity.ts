// The charges table: a charge, its type (immediate or with a due date), amounts, status and splits.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Customer } from './customer.entity.ts';
import { merchantStatusCounts } from '../platform/counters.ts';
import type { Discount, Fine, Interest, Rebate } from '../money/due-terms.ts';
import type { Components } from '../money/due-date-amounts.ts';
import type { ChargeSplit } from '../money/splits.ts';

export const CHARGE_STATUSES = ['PENDING', 'PAID', 'FAILED', 'CANCELED', 'REFUNDED'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];
// IMMEDIATE: the API Pix cob (one amount, expires after expiresIn seconds); DUE_DATE: the cobv (amount due by day);
// RECURRING: the money of a Pix Automático recurring charge (src/recurring), never listed or shown as a charge.
export const CHARGE_TYPES = ['IMMEDIATE', 'DUE_DATE', 'RECURRING'] as const;
export type ChargeType = (typeof CHARGE_TYPES)[number];

// Triggers keep charge_counts (append-only, see ChargeCount) exact in the writing transaction: statement triggers over
// the transition table for inserts and deletes (a bulk load adds one row per merchant and status), a row trigger for
// status changes. Declared here so MikroORM's schema diff knows them; created by the charge_counts migrations. A
// RECURRING row (the money of a recurring charge) is never counted (Migration20261202100000_hidden_charges).
export const LISTED = `"type" <> 'RECURRING'`;
export const CHARGE_TRIGGERS = merchantStatusCounts({
  table: 'charges',
  counter: 'charge_counts',
  where: LISTED,
  skip: `new."type" = 'RECURRING'`,
});

// fee is the platform's split, fixed when the charge is created; the merchant is credited amount - fee. A due-date
// charge is paid the amount due on the payment's day (paidAmount): its fee is computed then, on paidAmount, with the
// fee terms (feeBps, feeFixed) frozen at creation, and the merchant is credited paidAmount - fee.
export const Charge = defineEntity({
  name: 'Charge',
  tableName: 'charges',
  extends: BaseSchema,
  uniques: [{ properties: ['merchant', 'idempotencyKey'] }],
  triggers: CHARGE_TRIGGERS,
  indexes: [
    {
      name: 'charges_merchant_created_idx',
      expression: `create index "charges_merchant_created_idx" on "charges" ("merchant_id", "created_at" desc, "id" desc) where ${LISTED}`,
    },
    {
      name: 'charges_merchant_status_created_idx',
      expression: `create index "charges_merchant_status_created_idx" on "charges" ("merchant_id", "status", "created_at" desc, "id" desc) where ${LISTED}`,
    },
    {
      name: 'charges_pending_expiry_idx',
      expression: `create index "charges_pending_expiry_idx" on "charges" ("expires_at") where "status" = 'PENDING'`,
    },
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
    // The payer as this charge was created with: the customer (reused per merchant by document) keeps the latest.
    payerName: p.string().length(100).nullable(),
    payerEmail: p.string().length(254).nullable(),
    payerPhone: p.string().length(20).nullable(),
    tracking: p.json<Record<string, string>>().nullable(),
    location: p.string().length(77),
    qrCode: p.text(),
    idempotencyKey: p.string().length(64).nullable(),
    requestHash: p.string().length(64).nullable(),
    endToEndId: p.string().length(32).nullable().unique(),
    paidAt: p.datetime().nullable(),
    canceledAt: p.datetime().nullable(),
    refundedAt: p.datetime().nullable(),
    refundedAmount: p.integer().default(0), // the sum of its COMPLETED refunds (REFUNDED when it reaches amount)
    type: p.enum([...CHARGE_TYPES]).default('IMMEDIATE'),
    // DUE_DATE only (null on IMMEDIATE): the terms of src/money/due-date-amounts.ts
    dueDate: p.string().columnType('date').nullable(),
    validityAfterDueDays: p.integer().nullable(),
    rebate: p.json<Rebate>().nullable(),
    discount: p.json<Discount>().nullable(),
    fine: p.json<Fine>().nullable(),
    interest: p.json<Interest>().nullable(),
    feeBps: p.integer().nullable(),
    feeFixed: p.integer().nullable(),
    // set by the payment: what the payer paid, and (DUE_DATE) what it was made of
    paidAmount: p.integer().nullable(),
    components: p.json<Components>().nullable(),
    // the owner's net amount shared with other merchants (src/money/splits.ts), in the order given: each amount
    // known at creation, or (a bps split of a due-date charge) set by the payment; null when the charge has none
    splits: p.json<ChargeSplit[]>().nullable(),
  },
});

export type ICharge = InferEntity<typeof Charge>;
