// The api_keys table: a merchant's API keys, stored as a hash and a non-secret prefix.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { User } from './user.entity.ts';

export const API_KEY_STATUSES = ['ACTIVE', 'INACTIVE'] as const;

// The key's value is never stored: only its SHA-256 (looked up by hash) and a short non-secret prefix.
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  extends: BaseSchema,
  properties: {
    user: () => p.manyToOne(User).index(),
    name: p.string().length(100),
    description: p.string().length(255),
    prefix: p.string().length(16),
    keyHash: p.string().length(64).unique(),
    status: p.enum([...API_KEY_STATUSES]).default('ACTIVE'),
    lastUsedAt: p.datetime().nullable(),
  },
});

export type IApiKey = InferEntity<typeof ApiKey>;
