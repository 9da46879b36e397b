// One cycle's charge of a Pix Automático mandate (API Pix cobrança recorrente, cobr) and its attempts (tentativas).
import { defineEntity, p } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Charge } from '../charges/charge.entity.ts';
import { merchantStatusCounts } from '../platform/counters.ts';
import { Mandate } from './mandate.entity.ts';

export const RECURRING_CHARGE_STATUSES = ['CREATED', 'ACTIVE', 'PAID', 'FAILED', 'CANCELED', 'EXPIRED'] as const;
export type RecurringChargeStatus = (typeof RECURRING_CHARGE_STATUSES)[number];
export const ATTEMPT_STATUSES = ['SCHEDULED', 'PAID', 'REJECTED', 'CANCELED'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
export type Attempt = {
  date: string;
  kind: 'DUE_DATE' | 'RETRY';
  status: AttemptStatus;
  failureCode: string | null;
  endToEndId: string | null;
  at: string;
};

export const RECURRING_CHARGE_TRIGGERS = merchantStatusCounts({
  table: 'recurring_charges',
  counter: 'recurring_charge_counts',
});

// `charge`: the charges row (type RECURRING, never listed or shown as a charge) that carries the money: the payment
// settles it (src/payments), refunds and MED work on it. `attempts` in order, changed only under this row's lock.
// One live charge (not CANCELED, not FAILED) per mandate and cycle.
export const RecurringCharge = defineEntity({
  name: 'RecurringCharge',
  tableName: 'recurring_charges',
  extends: BaseSchema,
  uniques: [{ properties: ['merchant', 'idempotencyKey'] }],
  triggers: RECURRING_CHARGE_TRIGGERS,
  indexes: [
    {
      name: 'recurring_charges_merchant_created_idx',
      expression:
        'create index "recurring_charges_merchant_created_idx" on "recurring_charges" ("merchant_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'recurring_charges_merchant_status_created_idx',
      expression:
        'create index "recurring_charges_merchant_status_created_idx" on "recurring_charges" ("merchant_id", "status", "created_at" desc, "id" desc)',
    },
    {
      name: 'recurring_charges_mandate_created_idx',
      expression:
        'create index "recurring_charges_mandate_created_idx" on "recurring_charges" ("mandate_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'recurring_charges_one_live_per_cycle',
      expression: `create unique index "recurring_charges_one_live_per_cycle" on "recurring_charges" ("mandate_id", "cycle") where "status" not in ('CANCELED', 'FAILED')`,
    },
    {
      name: 'recurring_charges_open_due_idx',
      expression: `create index "recurring_charges_open_due_idx" on "recurring_charges" ("due_date") where "status" in ('CREATED', 'ACTIVE')`,
    },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant),
    mandate: () => p.manyToOne(Mandate),
    charge: () => p.manyToOne(Charge).unique(),
    txid: p.string().length(35).unique(),
    cycle: p.integer(),
    dueDate: p.string().columnType('date'),
    amount: p.integer(),
    description: p.string().length(140).nullable(),
    status: p.enum([...RECURRING_CHARGE_STATUSES]).default('CREATED'),
    attempts: p.json<Attempt[]>(),
    retriesLeft: p.integer(),
    automatic: p.boolean().default(false),
    paidAt: p.datetime().nullable(),
    paidAmount: p.integer().nullable(),
    fee: p.integer().nullable(),
    idempotencyKey: p.string().length(64).nullable(),
    requestHash: p.string().length(64).nullable(),
  },
});

export const RecurringChargeCount = defineEntity({
  name: 'RecurringChargeCount',
  tableName: 'recurring_charge_counts',
  indexes: [{ name: 'recurring_charge_counts_keys_idx', properties: ['merchant', 'status'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    status: p.enum([...RECURRING_CHARGE_STATUSES]),
    count: p.bigint('number').default(0),
  },
});
