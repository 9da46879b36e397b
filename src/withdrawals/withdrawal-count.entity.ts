// The withdrawal_counts table: append-only counts, the withdrawals listing's total.
import { defineEntity, p } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.ts';

// How many withdrawals each merchant has, so the listing's `total` never counts a million rows. Append-only, like
// charge_counts: the statement triggers on `withdrawals` (see Withdrawal.triggers) insert one +n/-n row per statement
// and merchant, and the worker folds them every minute (src/platform/counters.ts). Read as a sum.
export const WithdrawalCount = defineEntity({
  name: 'WithdrawalCount',
  tableName: 'withdrawal_counts',
  indexes: [{ name: 'withdrawal_counts_keys_idx', properties: ['merchant'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    count: p.bigint('number').default(0),
  },
});
