// The JWTs this service signs (HS256) and verifies.
import jwt from 'jsonwebtoken';
import { createHash, randomBytes } from 'node:crypto';
import { hmacKey } from '../platform/hmac-key.ts';

export const JWT_LIFETIME_SECONDS = 7 * 24 * 60 * 60;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function signJwt(secret: string, userId: string, role: string): string {
  return jwt.sign({ role }, hmacKey(secret), { algorithm: 'HS256', subject: userId, expiresIn: JWT_LIFETIME_SECONDS });
}

/**
 * Returns the user id of a valid token signed with our secret, or null. Only what signJwt issues passes: HS256, an
 * `exp` (jsonwebtoken accepts a token without one), issued (`iat`) at most 7 days ago whatever its `exp` says, and a
 * UUID subject (anything else would reach the users query as a malformed uuid).
 */
export function verifyJwt(secret: string, token: string): string | null {
  try {
    const payload = jwt.verify(token, hmacKey(secret), { algorithms: ['HS256'], maxAge: JWT_LIFETIME_SECONDS });
    if (typeof payload !== 'object' || typeof payload.exp !== 'number') return null;
    return typeof payload.sub === 'string' && UUID.test(payload.sub) ? payload.sub : null;
  } catch {
    return null;
  }
}

/**
 * When a token verifyJwt accepted stops being accepted (ms since the epoch): its `exp`, or 7 days after it was issued
 * if that comes first. jsonwebtoken refuses it from the second `exp` names (whole seconds), so until then it works.
 */
export function jwtExpiresAt(token: string): number {
  const { exp, iat } = jwt.decode(token, { json: true }) as { exp: number; iat: number };
  return Math.min(exp, iat + JWT_LIFETIME_SECONDS) * 1000;
}

export const API_KEY_PREFIX = 'lk_';

// lk_ + 32 random bytes in base64url (43 chars): 256 bits, so a plain SHA-256 is a safe lookup hash.
export function generateApiKey(): { value: string; prefix: string; hash: string } {
  const value = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { value, prefix: value.slice(0, 9), hash: hashApiKey(value) };
}

export function hashApiKey(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
