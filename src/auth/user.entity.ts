// The users table: who logs in, with its role.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';

export const ROLES = ['USER', 'ADMIN'] as const;

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  extends: BaseSchema,
  properties: {
    email: p.string().length(254).unique(),
    passwordHash: p.string().hidden().lazy(),
    role: p.enum([...ROLES]).default('USER'),
  },
});

export type IUser = InferEntity<typeof User>;
