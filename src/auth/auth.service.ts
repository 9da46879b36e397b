// Authentication's use cases: login, and a bearer credential resolved to its principal.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AUTH_MESSAGES, ForbiddenError, HttpError, UnauthorizedError } from '../platform/errors.ts';
import { User, type IUser } from './user.entity.ts';
import { DUMMY_HASH, verifyPassword } from './password.ts';
import { API_KEY_PREFIX, hashApiKey, jwtExpiresAt, signJwt, verifyJwt } from './tokens.ts';
import type { Principal } from './principal.ts';
import * as sql from './auth.sql.ts';
import { ormSql, type Statement } from '../platform/sql.ts';
import type { PgPool } from '../platform/pg.ts';
import type { PrincipalCache } from './principal-cache.ts';

export type { PrincipalRow } from './auth.sql.ts';

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
  if (!user || !ok) throw new UnauthorizedError(AUTH_MESSAGES.badCredentials, 'invalid_credentials');
  return { token: signJwt(jwtSecret, user.id, user.role), user: userView(user) };
}

// Resolves a bearer credential (JWT or lk_ API key) to a principal with one query, or none when `cache` holds it
// (principal-cache.ts); throws the spec's 401/403 messages. The query is a declared statement, read outside any
// transaction: named on the ORM's pool (prepared.ts).
export async function resolvePrincipal(
  em: EntityManager,
  jwtSecret: string,
  token: string,
  cache?: PrincipalCache,
): Promise<Principal> {
  const read = (key: string, statement: Statement, value: string) => {
    const load = async () => (await ormSql(em).query<sql.PrincipalRow>(statement, [value]))[0];
    return cache ? cache.get(key, load) : load();
  };
  if (token.startsWith(API_KEY_PREFIX)) {
    const hash = hashApiKey(token);
    const row = await read(`key:${hash}`, sql.PRINCIPAL_BY_API_KEY, hash);
    // lastUsedAt is kept to the minute: one write per key per minute, not one per request.
    if (row?.key_status === 'ACTIVE' && row.key_stale) {
      await ormSql(em).run(sql.TOUCH_API_KEY, [row.key_id]);
      cache?.update(`key:${hash}`, { ...row, key_stale: false });
    }
    return principalOf(row, 'apiKey');
  }
  const userId = verifyJwt(jwtSecret, token);
  if (!userId) throw new UnauthorizedError(AUTH_MESSAGES.invalidToken);
  return principalOf(await read(`user:${userId}`, sql.PRINCIPAL_BY_USER, userId), 'jwt');
}

// The principal a credential's row (auth.sql.ts PRINCIPAL_BY_*; undefined: none) resolves to, or the spec's 401/403.
function principalOf(row: sql.PrincipalRow | undefined, via: Principal['via']): Principal {
  if (via === 'apiKey') {
    if (!row) throw new UnauthorizedError(AUTH_MESSAGES.invalidApiKey);
    if (row.key_status !== 'ACTIVE') throw new UnauthorizedError(AUTH_MESSAGES.inactiveApiKey);
  } else if (!row) throw new UnauthorizedError(AUTH_MESSAGES.invalidToken);
  if (row.merchant_status === 'BLOCKED') throw new ForbiddenError(AUTH_MESSAGES.blocked, 'account_inactive');
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
    via,
    apiKeyId: row.key_id ?? null,
  };
}

/**
 * A credential as what holds it open (an event stream) checks it again later: what its row is looked up by (an API
 * key's hash, a JWT's user: auth.sql.ts PRINCIPAL_BY_* and PRINCIPALS_BY_*), and when it stops working by itself (a
 * JWT at its expiry; an API key never does).
 */
export type HeldCredential = { via: Principal['via']; lookup: string; expiresAt: number | null };

// `token` as `principal` was resolved from it a moment ago.
export function holdCredential(token: string, principal: Principal): HeldCredential {
  return principal.via === 'apiKey'
    ? { via: 'apiKey', lookup: hashApiKey(token), expiresAt: null }
    : { via: 'jwt', lookup: principal.userId, expiresAt: jwtExpiresAt(token) };
}

// The statement that resolves one held credential (`$1`: its lookup), for a statement of another module that must read
// it in its own snapshot (the event stream's page: src/events/stream.sql.ts AFTER).
export const PRINCIPAL_OF: Record<HeldCredential['via'], string> = {
  apiKey: sql.PRINCIPAL_BY_API_KEY.text,
  jwt: sql.PRINCIPAL_BY_USER.text,
};

// What many held credentials resolve to now (an API process' open event streams, checked again together), read on the
// caller's pool, both kinds at once: each row by `${via}:${lookup}`.
export async function principalsOf(
  db: Pick<PgPool, 'query'>,
  lookups: Record<HeldCredential['via'], string[]>,
): Promise<Map<string, sql.PrincipalRow>> {
  const read = async (statement: Statement, values: string[]) =>
    values.length ? await db.query<sql.PrincipalRow>(statement, [values]) : [];
  const [byKey, byUser] = await Promise.all([
    read(sql.PRINCIPALS_BY_API_KEYS, lookups.apiKey),
    read(sql.PRINCIPALS_BY_USERS, lookups.jwt),
  ]);
  return new Map<string, sql.PrincipalRow>([
    ...byKey.map((r) => [`apiKey:${r.key_hash}`, r] as const),
    ...byUser.map((r) => [`jwt:${r.user_id}`, r] as const),
  ]);
}

// Why `held` no longer opens the API for `merchantId`, given its row as read now (undefined: none): the message a
// request with it would now get (401, 403), or null while it still does.
export function refusalOf(
  held: HeldCredential,
  row: sql.PrincipalRow | undefined,
  merchantId: string,
  now = Date.now(),
): string | null {
  if (held.expiresAt !== null && now >= held.expiresAt) return AUTH_MESSAGES.invalidToken;
  try {
    return principalOf(row, held.via).merchantId === merchantId ? null : AUTH_MESSAGES.merchantNotFound;
  } catch (err) {
    if (err instanceof HttpError) return err.message;
    throw err;
  }
}
