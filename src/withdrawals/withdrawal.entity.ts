// The withdrawals table: a merchant's transfer out to a Pix key.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { PIX_KEY_TYPES } from '../pix/keys.ts';
import { countTrigger } from '../platform/counters.ts';

export const WITHDRAWAL_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

// Statement triggers keep withdrawal_counts exact for any insert (one row or a bulk seed) or delete, in the same
// transaction. A trigger with a transition table takes one event, hence two. Declared here so MikroORM's schema
// diff knows them (it would otherwise propose dropping them); created by the withdrawals migration.
const count = (event: 'insert' | 'delete') =>
  countTrigger(
    {
      table: 'withdrawals',
      counter: 'withdrawal_counts',
      keys: '"merchant_id"',
      name: `count_${event}`,
      fn: `withdrawals_count_${event}_fn`,
    },
    event,
  );

export const WITHDRAWAL_TRIGGERS = [count('insert'), count('delete')];

// returnedAt: the transfer completed and was later returned by the receiving bank (money credited back).
export const Withdrawal = defineEntity({
  name: 'Withdrawal',
  tableName: 'withdrawals',
  extends: BaseSchema,
  uniques: [{ properties: ['merchant', 'idempotencyKey'] }],
  triggers: WITHDRAWAL_TRIGGERS,
  indexes: [
    {
      name: 'withdrawals_merchant_created_idx',
      expression:
        'create index "withdrawals_merchant_created_idx" on "withdrawals" ("merchant_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'withdrawals_processing_idx',
      expression: `create index "withdrawals_processing_idx" on "withdrawals" ("updated_at") where "status" = 'PROCESSING'`,
    },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant),
    amount: p.integer(),
    description: p.string().length(255).nullable(),
    status: p.enum([...WITHDRAWAL_STATUSES]).default('PROCESSING'),
    batchId: p.string().length(100).nullable(),
    pixKey: p.string().length(77),
    pixKeyType: p.enum([...PIX_KEY_TYPES]),
    idempotencyKey: p.string().length(64).nullable(),
    requestHash: p.string().length(64).nullable(),
    failureReason: p.string().length(255).nullable(),
    completedAt: p.datetime().nullable(),
    failedAt: p.datetime().nullable(),
    returnedAt: p.datetime().nullable(),
  },
});

export type IWithdrawal = InferEntity<typeof Withdrawal>;
