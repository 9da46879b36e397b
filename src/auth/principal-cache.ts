// What each credential resolves to, kept in memory and forgotten when the database notifies a change.
import type { Listener } from '../platform/listener.ts';

// The channel the database notifies on when anything a credential resolves to changes: an API key's status, hash or
// owner, a user's role, a merchant's status, KYC, fees, names or acquirer account, and any row of theirs deleted
// (triggers of Migration20261130090000_principal_changes, so an operator's script or a hand-run UPDATE notifies too).
export const PRINCIPALS_CHANNEL = 'pix_principals';

const MAX_ENTRIES = 10_000;

export type PrincipalCache = {
  // The cached value for `key`, or what `load` reads (kept if nothing changed meanwhile); `load` resolving to
  // undefined (an unknown credential) is never kept.
  get: <T extends object>(key: string, load: () => Promise<T | undefined>) => Promise<T | undefined>;
  // Replaces a kept value (the key's last use, recorded), unless something changed since it was read.
  update: <T extends object>(key: string, value: T) => void;
  forget: () => void;
  readonly size: number;
};

/**
 * What a credential resolves to (its user, its merchant, their statuses and fees), kept for at most `ttlMs` so that an
 * API request reads it from memory instead of the database, and forgotten entirely the moment the database notifies a
 * change (PRINCIPALS_CHANNEL). It is used only while this process' LISTEN connection is up: when that is down a
 * notification could be lost, so every request reads the database until it is back (and the cache starts empty).
 * A read that raced with a change is not kept: a notification (or the listener going down) starts a new generation, and
 * a value is kept only if the generation it was read in is still the current one. `ttlMs` bounds what a lost wake-up could cost; 0 turns it off.
 */
export function createPrincipalCache(listener: Listener, ttlMs: number): PrincipalCache {
  type Entry = { value: object; at: number }; // every entry was read in the current generation (forget empties them)
  const entries = new Map<string, Entry>();
  let generation = 0;
  const forget = () => {
    generation++;
    entries.clear();
  };
  listener.on(PRINCIPALS_CHANNEL, forget);
  listener.onState(forget);
  const usable = () => ttlMs > 0 && listener.up;

  return {
    async get<T extends object>(key: string, load: () => Promise<T | undefined>) {
      const now = Date.now();
      const hit = usable() ? entries.get(key) : undefined;
      if (hit && now - hit.at < ttlMs) return hit.value as T;
      const readIn = generation;
      const value = await load();
      if (value !== undefined && usable() && readIn === generation) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!); // the oldest
        entries.set(key, { value, at: now });
      }
      return value;
    },
    update(key, value) {
      const entry = entries.get(key);
      if (entry) entry.value = value;
    },
    forget,
    get size() {
      return entries.size;
    },
  };
}
