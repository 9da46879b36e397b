// The API keys' use cases: create (the value shown once), list, revoke.
import type { Transition } from '../platform/sql.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../platform/errors.ts';
import { API_KEY_STATUSES, ApiKey, type IApiKey } from './api-key.entity.ts';
import { generateApiKey } from './tokens.ts';
import { isUuid } from '../platform/base.entity.ts';

export const apiKeyView = (k: IApiKey) => ({
  id: k.id,
  name: k.name,
  description: k.description,
  prefix: k.prefix,
  status: k.status,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
});

// The only moment the value exists outside the caller: it is returned here and never stored.
export async function createApiKey(em: EntityManager, userId: string, input: { name: string; description: string }) {
  const { value, prefix, hash } = generateApiKey();
  const key = em.create(ApiKey, {
    user: userId,
    name: input.name,
    description: input.description,
    prefix,
    keyHash: hash,
  });
  await em.flush();
  const { id, name, description, status, createdAt } = apiKeyView(key);
  return { id, name, description, value, status, createdAt };
}

export async function listApiKeys(em: EntityManager, userId: string) {
  const keys = await em.find(ApiKey, { user: userId }, { orderBy: { id: 'desc' } });
  return keys.map(apiKeyView);
}

// Every status change of an API key: revocation (again: a no-op that answers the same).
export const API_KEY_TRANSITIONS = {
  revoke: { from: API_KEY_STATUSES, to: 'INACTIVE', event: null },
} as const satisfies Record<string, Transition<(typeof API_KEY_STATUSES)[number]>>;

// Revocation keeps the record (audit) and makes the key answer 401 "Chave de API inativa".
export async function revokeApiKey(em: EntityManager, userId: string, id: string) {
  const key = isUuid(id) ? await em.findOne(ApiKey, { id, user: userId }) : null;
  if (!key) throw new NotFoundError('Chave de API não encontrada');
  const t = API_KEY_TRANSITIONS.revoke;
  if (t.from.includes(key.status)) key.status = t.to;
  await em.flush();
}
