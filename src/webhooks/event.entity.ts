import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';

// Something that happened to a merchant's money, written in the transaction of the change that caused it.
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  extends: BaseSchema,
  properties: {
    merchant: () => p.manyToOne(Merchant).index(),
    type: p.string().length(40),
    data: p.json<Record<string, unknown>>(),
  },
});

export type IEvent = InferEntity<typeof Event>;
