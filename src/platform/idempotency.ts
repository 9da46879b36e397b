// Creations with x-idempotency-key: a replay answers the first result, another body is a 409.
import { createHash } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ConflictError } from './errors.ts';

export const IDEMPOTENCY_CONFLICT = 'Chave de idempotência já usada com outro corpo de requisição';

// Fingerprint of a creation request: the same idempotency key with a different body is a conflict (409).
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

type Prior = { requestHash?: string | null };

/**
 * A creation under an optional `x-idempotency-key` (contract): the first request creates; a repeat with the same body
 * replays the original creation (200 + `idempotent-replayed`), with another body it is 409. Concurrent repeats meet at
 * the unique (merchant, key) constraint: the losers answer as replays of the winner.
 * `find` reads the earlier creation with this key; `create` receives the request hash to store with the new row.
 */
export async function createOnce<T extends Prior, R>(
  key: string | undefined,
  input: unknown,
  o: {
    find: () => Promise<T | null>;
    create: (requestHash: string | null) => Promise<R>;
    replay: (prior: T) => R;
  },
): Promise<{ result: R; replayed: boolean }> {
  const hash = key ? requestHash(input) : null;
  const replayOf = (prior: T) => {
    if (prior.requestHash !== hash) throw new ConflictError(IDEMPOTENCY_CONFLICT, 'idempotency_conflict');
    return { result: o.replay(prior), replayed: true };
  };
  if (key) {
    const prior = await o.find();
    if (prior) return replayOf(prior);
  }
  try {
    return { result: await o.create(hash), replayed: false };
  } catch (err) {
    if (key && err instanceof UniqueConstraintViolationException) {
      const prior = await o.find();
      if (prior) return replayOf(prior);
    }
    throw err;
  }
}
