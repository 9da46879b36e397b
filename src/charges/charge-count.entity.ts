import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.ts';
import { CHARGE_STATUSES } from './charge.entity.ts';

// How many charges each merchant has per status, so the listing's `total` (with or without a status filter) never
// counts a million rows. Kept by triggers on `charges` in the writing transaction; spread over 8 shards per
// (merchant, status) so concurrent writes of one merchant do not queue on a single row; read as a sum.
export const ChargeCount = defineEntity({
  name: 'ChargeCount',
  tableName: 'charge_counts',
  properties: {
    merchant: () => p.manyToOne(Merchant).primary().deleteRule('cascade'),
    status: p.enum([...CHARGE_STATUSES]).primary(),
    shard: p.smallint().primary(),
    count: p.bigint('number').default(0),
  },
});

export type IChargeCount = InferEntity<typeof ChargeCount>;
