// The pix_keys table: a merchant's own Pix keys.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { PIX_KEY_TYPES } from '../pix/keys.ts';

export const PixKey = defineEntity({
  name: 'PixKey',
  tableName: 'pix_keys',
  extends: BaseSchema,
  properties: {
    merchant: () => p.manyToOne(Merchant).index(),
    type: p.enum([...PIX_KEY_TYPES]),
    key: p.string().length(77),
    status: p.enum(['ACTIVE', 'INACTIVE']).default('ACTIVE'),
  },
});

export type IPixKey = InferEntity<typeof PixKey>;
