// The daemon's HMAC keys, decrypted once per webhook secret.
import type { KeyObject } from 'node:crypto';
import { open, type Keyring } from '../platform/secrets.ts';
import { signingKey } from './signing.ts';

const MAX_ENTRIES = 10_000;

/**
 * The daemon's HMAC keys, decrypted once per webhook secret rather than once per delivery. Keyed by the stored value:
 * a re-sealed (rotated) secret is a new entry and the old one ages out, least recently used first. Throws
 * SecretKeyError for a value no configured key opens.
 */
export function signingKeyCache(secrets: Keyring, max = MAX_ENTRIES) {
  const cache = new Map<string, KeyObject>();
  return (webhookId: string, stored: string): KeyObject => {
    const id = `${webhookId}|${stored}`;
    let key = cache.get(id);
    if (key)
      cache.delete(id); // re-inserted below: Map order is the recency order
    else key = signingKey(open(secrets, stored, webhookId));
    cache.set(id, key);
    if (cache.size > max) cache.delete(cache.keys().next().value!);
    return key;
  };
}

export type SigningKeys = ReturnType<typeof signingKeyCache>;
