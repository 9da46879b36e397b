// The infractions table: a MED dispute of a paid charge, its status and what it holds.
import { defineEntity, p } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Charge } from '../charges/charge.entity.ts';

export const INFRACTION_STATUSES = ['OPEN', 'UNDER_REVIEW', 'ACCEPTED', 'REJECTED', 'CANCELED'] as const;
export type InfractionStatus = (typeof INFRACTION_STATUSES)[number];

// A MED infraction on a paid charge. `blocked`: centavos held on the merchant's blocked account for it; `shortfall`:
// what is still to be blocked (available was lower when it opened), taken from the merchant's next credits.
// `acquirerId`: the PSP's idInfracao (apipix), so polling opens each one once.
export const Infraction = defineEntity({
  name: 'Infraction',
  tableName: 'infractions',
  extends: BaseSchema,
  indexes: [
    {
      name: 'infractions_merchant_created_idx',
      expression:
        'create index "infractions_merchant_created_idx" on "infractions" ("merchant_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'infractions_one_open_per_charge',
      expression: `create unique index "infractions_one_open_per_charge" on "infractions" ("charge_id") where "status" in ('OPEN', 'UNDER_REVIEW')`,
    },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant),
    charge: () => p.manyToOne(Charge).index(),
    amount: p.integer(),
    status: p.enum([...INFRACTION_STATUSES]).default('OPEN'),
    reason: p.string().length(255),
    defense: p.text().nullable(),
    deadlineAt: p.datetime(),
    blocked: p.integer().default(0),
    shortfall: p.integer().default(0),
    acquirerId: p.string().length(64).nullable().unique(),
  },
});
