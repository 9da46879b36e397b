import type { EntityManager } from '@mikro-orm/postgresql';
import { AUTH_MESSAGES, ForbiddenError, UnauthorizedError } from '../platform/errors.ts';
import { User, type IUser } from './user.entity.ts';
import { DUMMY_HASH, verifyPassword } from './password.ts';
import { API_KEY_PREFIX, hashApiKey, signJwt, verifyJwt } from './tokens.ts';
import type { Principal } from './principal.ts';
import * as sql from './auth.sql.ts';
import { hotRead } from '../platform/prepared.ts';
import type { PrincipalCache } from './principal-cache.ts';

export type AuthResult = { token: string; user: { id: string; email: string; role: string } };

export const userView = (u: IUser) => ({ id: u.id, email: u.email, role: u.role });

export async function login(
  em: EntityManager,
  jwtSecret: string,
  email: string,
  password: string,
): Promise<AuthResult> {
  const user = await em.findOne(User, { email }, { populate: ['passwordHash'] });
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new UnauthorizedError(AUTH_MESSAGES.badCredentials);
  return { token: signJwt(jwtSecret, user.id, user.role), user: userView(user) };
}

// Resolves a bearer credential (JWT or lk_ API key) to a principal with one query, or none when `cache` holds it
// (principal-cache.ts); throws the spec's 401/403 messages. `prepare`: the query is a named statement (prepared.ts;
// false behind a pooler in transaction mode).
export async function resolvePrincipal(
  em: EntityManager,
  jwtSecret: string,
  token: string,
  prepare: boolean,
  cache?: PrincipalCache,
): Promise<Principal> {
  const read = (key: string, text: string, value: string) => {
    const load = async () => (await hotRead<sql.PrincipalRow>(em, prepare, text, [value]))[0];
    return cache ? cache.get(key, load) : load();
  };
  let row: sql.PrincipalRow | undefined;
  if (token.startsWith(API_KEY_PREFIX)) {
    const hash = hashApiKey(token);
    row = await read(`key:${hash}`, sql.PRINCIPAL_BY_API_KEY, hash);
    if (!row) throw new UnauthorizedError(AUTH_MESSAGES.invalidApiKey);
    if (row.key_status !== 'ACTIVE') throw new UnauthorizedError(AUTH_MESSAGES.inactiveApiKey);
    // lastUsedAt is kept to the minute: one write per key per minute, not one per request.
    if (row.key_stale) {
      await em.getConnection().execute(sql.TOUCH_API_KEY, [row.key_id]);
      cache?.update(`key:${hash}`, { ...row, key_stale: false });
    }
  } else {
    const userId = verifyJwt(jwtSecret, token);
    if (!userId) throw new UnauthorizedError(AUTH_MESSAGES.invalidToken);
    row = await read(`user:${userId}`, sql.PRINCIPAL_BY_USER, userId);
    if (!row) throw new UnauthorizedError(AUTH_MESSAGES.invalidToken);
  }
  if (row.merchant_status === 'BLOCKED') throw new ForbiddenError(AUTH_MESSAGES.blocked);
  return {
    userId: row.user_id,
    role: row.role,
    merchantId: row.merchant_id,
    merchant: row.merchant_id
      ? {
          id: row.merchant_id,
          name: row.merchant_name,
          city: row.merchant_city,
          kycStatus: row.kyc_status,
          acquirerAccountId: row.acquirer_account_id,
          feeBps: row.fee_bps,
          feeFixed: row.fee_fixed,
        }
      : null,
    via: row.key_id ? 'apiKey' : 'jwt',
    apiKeyId: row.key_id ?? null,
  };
}
