// The charge_counts table: append-only counts per merchant and status, the charges listing's total.
import { defineEntity, p } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.ts';
import { CHARGE_STATUSES } from './charge.entity.ts';

// How many charges each merchant has per status, so the listing's `total` (with or without a status filter) never
// counts a million rows. Append-only: triggers on `charges` insert a +n/-n row in the writing transaction (no counter
// row is locked, so concurrent payments of one merchant never queue on it); the worker folds each (merchant, status)
// back into one row every minute (src/platform/counters.ts). Read as a sum.
export const ChargeCount = defineEntity({
  name: 'ChargeCount',
  tableName: 'charge_counts',
  indexes: [{ name: 'charge_counts_keys_idx', properties: ['merchant', 'status'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    status: p.enum([...CHARGE_STATUSES]),
    count: p.bigint('number').default(0),
  },
});
