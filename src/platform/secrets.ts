// Secrets at rest (webhook signing secrets): encrypted under named keys, rotated.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Secrets at rest (webhook signing secrets): AES-256-GCM under a named key, stored as
// `v1:<kid>:<iv>:<tag>:<ciphertext>` (base64url). The first key of SECRETS_KEYS seals, every listed key opens.
export type Keyring = { current: string; keys: Map<string, Buffer> };

const PREFIX = 'v1';
const KID = /^[A-Za-z0-9_-]{1,32}$/;
const TAG_BYTES = 16; // GCM's full tag: a shorter one given to setAuthTag would be checked only that far
// Development and tests only: config.ts never uses it with production's protections or ACQUIRER=apipix.
const DEV_KEYS = 'dev:ZGV2LW9ubHktaW5zZWN1cmUtc2VjcmV0cy1rZXkhIT0=';

// A missing or malformed key (configuration), or a value that cannot be opened with the keys given.
export class SecretKeyError extends Error {}

// A process that never opens a secret (worker, operator tools) runs without SECRETS_KEYS: sealing or opening fails.
export const NO_KEYS: Keyring = { current: '', keys: new Map() };

export const developmentKeyring = (): Keyring => parseKeyring(DEV_KEYS, false);

// `k2:<base64 of 32 bytes>,k1:<base64>`: the first one encrypts.
export function parseKeyring(raw: string, refuseDevKey: boolean): Keyring {
  if (refuseDevKey && raw.includes(DEV_KEYS.split(':')[1]!)) {
    throw new SecretKeyError('SECRETS_KEYS holds the development key: generate one with `openssl rand -base64 32`');
  }
  const keys = new Map<string, Buffer>();
  for (const entry of raw.split(',')) {
    const [kid = '', b64 = '', ...rest] = entry.trim().split(':');
    if (!KID.test(kid) || rest.length) {
      throw new SecretKeyError(
        'SECRETS_KEYS must be a comma-separated list of <id>:<base64 key>, ids of [A-Za-z0-9_-]',
      );
    }
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32) throw new SecretKeyError(`SECRETS_KEYS: key "${kid}" must be 32 bytes in base64`);
    if (keys.has(kid)) throw new SecretKeyError(`SECRETS_KEYS: key id "${kid}" appears twice`);
    keys.set(kid, key);
  }
  return { current: keys.keys().next().value!, keys };
}

// `aad` binds the value to its row (the webhook id): a value copied onto another row does not open.
export function seal(ring: Keyring, plaintext: string, aad: string): string {
  const key = ring.keys.get(ring.current);
  if (!key) throw new SecretKeyError('SECRETS_KEYS is not set: "k1:<base64 of 32 random bytes>"');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES }).setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
  return [PREFIX, ring.current, ...parts].join(':');
}

// The key id a stored value is sealed under; null for a legacy plaintext value.
export function keyIdOf(stored: string): string | null {
  return stored.startsWith(`${PREFIX}:`) ? (stored.split(':')[1] ?? '') : null;
}

// Legacy plaintext values (written before encryption) are returned as they are until secrets:rotate-key seals them.
export function open(ring: Keyring, stored: string, aad: string): string {
  const kid = keyIdOf(stored);
  if (kid === null) return stored;
  const [, , iv = '', tag = '', ciphertext = ''] = stored.split(':');
  const key = ring.keys.get(kid);
  if (!key) throw new SecretKeyError(`secret sealed under unknown key id "${kid}": add it to SECRETS_KEYS`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES })
      .setAAD(Buffer.from(aad))
      .setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyError(`secret under key id "${kid}" does not decrypt: wrong key or altered value`);
  }
}
