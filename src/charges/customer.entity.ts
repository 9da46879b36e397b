// The customers table: a merchant's payers, reused by document.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';

// Payers are reused per merchant by document (CPF/CNPJ).
export const Customer = defineEntity({
  name: 'Customer',
  tableName: 'customers',
  extends: BaseSchema,
  uniques: [{ properties: ['merchant', 'document'] }],
  properties: {
    merchant: () => p.manyToOne(Merchant),
    name: p.string().length(100),
    document: p.string().length(14),
    email: p.string().length(254).nullable(),
    phone: p.string().length(20).nullable(),
  },
});

export type ICustomer = InferEntity<typeof Customer>;
