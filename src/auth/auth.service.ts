import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AUTH_MESSAGES, ConflictError, ForbiddenError, UnauthorizedError } from '../platform/errors.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { User, type IUser } from './user.entity.ts';
import { DUMMY_HASH, hashPassword, verifyPassword } from './password.ts';
import { API_KEY_PREFIX, hashApiKey, signJwt, verifyJwt } from './tokens.ts';
import type { Principal } from './principal.ts';

export type RegisterInput = { email: string; password: string; name: string; document: string };
export type AuthResult = { token: string; user: { id: string; email: string; role: string } };

const userView = (u: IUser) => ({ id: u.id, email: u.email, role: u.role });

// Creates the user (role USER) and its merchant (ACTIVE, KYC PENDING) together.
export async function register(em: EntityManager, jwtSecret: string, input: RegisterInput): Promise<AuthResult> {
  const passwordHash = await hashPassword(input.password);
  try {
    const user = await em.transactional(async (tx) => {
      const user = tx.create(User, { email: input.email, passwordHash, role: 'USER' });
      tx.create(Merchant, { user, name: input.name, document: input.document });
      await tx.flush();
      return user;
    });
    return { token: signJwt(jwtSecret, user.id, user.role), user: userView(user) };
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new ConflictError('E-mail já cadastrado');
    throw err;
  }
}

export async function login(em: EntityManager, jwtSecret: string, email: string, password: string): Promise<AuthResult> {
  const user = await em.findOne(User, { email }, { populate: ['passwordHash'] });
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new UnauthorizedError(AUTH_MESSAGES.badCredentials);
  return { token: signJwt(jwtSecret, user.id, user.role), user: userView(user) };
}

const MERCHANT_COLUMNS = `m.id as merchant_id, m.status as merchant_status, m.name as merchant_name, m.city as merchant_city,
  m.kyc_status, m.acquirer_account_id, m.fee_bps, m.fee_fixed`;

type PrincipalRow = {
  user_id: string;
  role: 'USER' | 'ADMIN';
  merchant_id: string | null;
  merchant_status: string | null;
  merchant_name: string;
  merchant_city: string;
  kyc_status: string;
  acquirer_account_id: string | null;
  fee_bps: number | null;
  fee_fixed: number | null;
  key_id?: string;
  key_status?: string;
  key_stale?: boolean;
};

// Resolves a bearer credential (JWT or lk_ API key) to a principal with one query; throws the spec's 401/403 messages.
export async function resolvePrincipal(em: EntityManager, jwtSecret: string, token: string): Promise<Principal> {
  const conn = em.getConnection();
  let row: PrincipalRow | undefined;
  if (token.startsWith(API_KEY_PREFIX)) {
    [row] = await conn.execute<PrincipalRow[]>(
      `select k.id as key_id, k.status as key_status,
              (k.last_used_at is null or k.last_used_at < now() - interval '1 minute') as key_stale,
              u.id as user_id, u.role, ${MERCHANT_COLUMNS}
         from api_keys k join users u on u.id = k.user_id left join merchants m on m.user_id = u.id
        where k.key_hash = ?`,
      [hashApiKey(token)],
    );
    if (!row) throw new UnauthorizedError(AUTH_MESSAGES.invalidApiKey);
    if (row.key_status !== 'ACTIVE') throw new UnauthorizedError(AUTH_MESSAGES.inactiveApiKey);
    // lastUsedAt is kept to the minute: one write per key per minute, not one per request.
    if (row.key_stale) await conn.execute('update api_keys set last_used_at = now() where id = ?', [row.key_id]);
  } else {
    const userId = verifyJwt(jwtSecret, token);
    if (!userId) throw new UnauthorizedError(AUTH_MESSAGES.invalidToken);
    [row] = await conn.execute<PrincipalRow[]>(
      `select u.id as user_id, u.role, ${MERCHANT_COLUMNS}
         from users u left join merchants m on m.user_id = u.id where u.id = ?`,
      [userId],
    );
    if (!row) throw new UnauthorizedError(AUTH_MESSAGES.invalidToken);
  }
  if (row.merchant_status === 'BLOCKED') throw new ForbiddenError(AUTH_MESSAGES.blocked);
  return {
    userId: row.user_id,
    role: row.role,
    merchantId: row.merchant_id,
    merchant: row.merchant_id ? {
      id: row.merchant_id, name: row.merchant_name, city: row.merchant_city, kycStatus: row.kyc_status,
      acquirerAccountId: row.acquirer_account_id, feeBps: row.fee_bps, feeFixed: row.fee_fixed,
    } : null,
    via: row.key_id ? 'apiKey' : 'jwt',
    apiKeyId: row.key_id ?? null,
  };
}
