// A Pix Automático mandate (API Pix recorrência): the payer's standing approval for the merchant to charge each cycle.
import { defineEntity, p } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Charge } from '../charges/charge.entity.ts';
import { merchantStatusCounts } from '../platform/counters.ts';

export const MANDATE_STATUSES = ['CREATED', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELED'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];
export const MANDATE_JOURNEYS = ['PUSH', 'QR', 'QR_WITH_PAYMENT', 'DUE_DATE_QR'] as const;
export const FREQUENCIES = ['WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'] as const;
export const RETRY_POLICIES = ['NONE', 'THREE_IN_SEVEN_DAYS'] as const;
export const REQUEST_STATUSES = ['SENT', 'ACCEPTED', 'REJECTED', 'EXPIRED', 'CANCELED'] as const;

export type MandateHistory = { status: MandateStatus; at: string }[];
export type MandateCancellation = { by: 'PAYER' | 'MERCHANT'; reason: string | null };
export type PayerAccount = { ispb: string; branch: string; account: string; document: string };
export type AutoCharge = { amount: number | null; leadDays: number };

export const MANDATE_TRIGGERS = merchantStatusCounts({ table: 'mandates', counter: 'mandate_counts' });

// `recId`: the recorrência's id, made by the receiver's PSP. `chargeId`: the charge paid with the approval
// (QR_WITH_PAYMENT, DUE_DATE_QR). `autoCharge`: the worker creates each cycle's charge by itself; `nextCycle` is the
// next cycle it has not charged yet and `autoChargeOn` the São Paulo day it creates it (cycle start - leadDays).
// `history`: every status with its time. `requestStatus`/`requestId`/`payerAccount`: journey 1 (PUSH) only.
export const Mandate = defineEntity({
  name: 'Mandate',
  tableName: 'mandates',
  extends: BaseSchema,
  uniques: [{ properties: ['merchant', 'idempotencyKey'] }],
  triggers: MANDATE_TRIGGERS,
  indexes: [
    {
      name: 'mandates_merchant_created_idx',
      expression:
        'create index "mandates_merchant_created_idx" on "mandates" ("merchant_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'mandates_merchant_status_created_idx',
      expression:
        'create index "mandates_merchant_status_created_idx" on "mandates" ("merchant_id", "status", "created_at" desc, "id" desc)',
    },
    {
      name: 'mandates_merchant_document_created_idx',
      expression:
        'create index "mandates_merchant_document_created_idx" on "mandates" ("merchant_id", "customer_document", "created_at" desc, "id" desc)',
    },
    {
      // the payment page finds the mandate a charge carries (Migration20261202100500_mandates_charge_index)
      name: 'mandates_charge_idx',
      expression:
        'create index "mandates_charge_idx" on "mandates" ("charge_id", "created_at" desc) where "charge_id" is not null',
    },
    {
      name: 'mandates_auto_charge_idx',
      expression: `create index "mandates_auto_charge_idx" on "mandates" ("auto_charge_on") where "status" = 'APPROVED' and "auto_charge" is not null`,
    },
    {
      name: 'mandates_created_expiry_idx',
      expression: `create index "mandates_created_expiry_idx" on "mandates" ("expires_at") where "status" = 'CREATED'`,
    },
    {
      name: 'mandates_approved_end_idx',
      expression: `create index "mandates_approved_end_idx" on "mandates" ("end_date") where "status" = 'APPROVED' and "end_date" is not null`,
    },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant),
    recId: p.string().length(35).unique(),
    journey: p.enum([...MANDATE_JOURNEYS]),
    status: p.enum([...MANDATE_STATUSES]).default('CREATED'),
    customerName: p.string().length(100),
    customerDocument: p.string().length(14),
    contract: p.string().length(35),
    object: p.string().length(35),
    frequency: p.enum([...FREQUENCIES]),
    startDate: p.string().columnType('date'),
    endDate: p.string().columnType('date').nullable(),
    amount: p.integer().nullable(),
    minAmount: p.integer().nullable(),
    payerMaxAmount: p.integer().nullable(),
    retryPolicy: p.enum([...RETRY_POLICIES]).default('NONE'),
    expiresAt: p.datetime(),
    qrCode: p.text().nullable(),
    location: p.string().length(77).nullable(),
    charge: () => p.manyToOne(Charge).nullable(),
    payerAccount: p.json<PayerAccount>().nullable(),
    requestStatus: p.enum([...REQUEST_STATUSES]).nullable(),
    requestId: p.string().length(35).nullable(),
    autoCharge: p.json<AutoCharge>().nullable(),
    nextCycle: p.integer().default(0),
    autoChargeOn: p.string().columnType('date').nullable(),
    cancellation: p.json<MandateCancellation>().nullable(),
    history: p.json<MandateHistory>(),
    idempotencyKey: p.string().length(64).nullable(),
    requestHash: p.string().length(64).nullable(),
  },
});

export const MandateCount = defineEntity({
  name: 'MandateCount',
  tableName: 'mandate_counts',
  indexes: [{ name: 'mandate_counts_keys_idx', properties: ['merchant', 'status'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    status: p.enum([...MANDATE_STATUSES]),
    count: p.bigint('number').default(0),
  },
});
