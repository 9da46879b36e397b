import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.ts';

export const WITHDRAWAL_COUNT_SHARDS = 8;

// How many withdrawals each merchant has, so the listing's `total` never counts a million rows.
// Maintained only by the statement triggers on `withdrawals` (see Withdrawal.triggers), in the inserting transaction.
// Spread over a few shards per merchant so concurrent withdrawals of one merchant do not queue on a single row.
export const WithdrawalCount = defineEntity({
  name: 'WithdrawalCount',
  tableName: 'withdrawal_counts',
  properties: {
    merchant: () => p.manyToOne(Merchant).primary().deleteRule('cascade'),
    shard: p.smallint().primary(),
    count: p.bigint('number').default(0),
  },
});

export type IWithdrawalCount = InferEntity<typeof WithdrawalCount>;
