import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';

export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'CHAVE_ALEATORIA'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

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
