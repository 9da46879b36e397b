import jwt from 'jsonwebtoken';
import { createHash, randomBytes } from 'node:crypto';

export const JWT_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

export function signJwt(secret: string, userId: string, role: string): string {
  return jwt.sign({ role }, secret, { algorithm: 'HS256', subject: userId, expiresIn: JWT_LIFETIME_SECONDS });
}

// Returns the user id of a valid, unexpired token signed with our secret, or null.
export function verifyJwt(secret: string, token: string): string | null {
  try {
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'] });
    return typeof payload === 'object' && typeof payload.sub === 'string' ? payload.sub : null;
  } catch {
    return null;
  }
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
