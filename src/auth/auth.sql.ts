// The statements of authentication: one query resolves a credential to its user and merchant (a named statement on
// the ORM's pool, outside any transaction: declared `$n` statements, src/platform/sql.ts), kept by the API process'
// principal cache (principal-cache.ts).
import { statement } from '../platform/sql.ts';
const MERCHANT_COLUMNS = `m.id as merchant_id, m.status as merchant_status, m.name as merchant_name,
         m.city as merchant_city, m.kyc_status, m.acquirer_account_id, m.fee_bps, m.fee_fixed`;

export type PrincipalRow = {
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
  key_hash?: string; // PRINCIPALS_BY_API_KEYS only
};

export const PRINCIPAL_BY_API_KEY = statement(
  'auth.principal_by_api_key',
  `
  select k.id as key_id, k.status as key_status,
         (k.last_used_at is null or k.last_used_at < now() - interval '1 minute') as key_stale,
         u.id as user_id, u.role, ${MERCHANT_COLUMNS}
    from api_keys k
    join users u on u.id = k.user_id
    left join merchants m on m.user_id = u.id
   where k.key_hash = $1`,
);

// The same for many credentials at once (what an API process' open event streams hold, checked again together):
// $1 key hashes, each row with the `key_hash` it answers for.
export const PRINCIPALS_BY_API_KEYS = statement(
  'auth.principals_by_api_keys',
  `
  select k.id as key_id, k.status as key_status, k.key_hash,
         u.id as user_id, u.role, ${MERCHANT_COLUMNS}
    from api_keys k
    join users u on u.id = k.user_id
    left join merchants m on m.user_id = u.id
   where k.key_hash = any($1::text[])`,
);

export const PRINCIPAL_BY_USER = statement(
  'auth.principal_by_user',
  `
  select u.id as user_id, u.role, ${MERCHANT_COLUMNS}
    from users u
    left join merchants m on m.user_id = u.id
   where u.id = $1`,
);

// $1 user ids.
export const PRINCIPALS_BY_USERS = statement(
  'auth.principals_by_users',
  `
  select u.id as user_id, u.role, ${MERCHANT_COLUMNS}
    from users u
    left join merchants m on m.user_id = u.id
   where u.id = any($1::uuid[])`,
);

// lastUsedAt is kept to the minute: one write per key per minute, not one per request.
export const TOUCH_API_KEY = statement(
  'auth.touch_api_key',
  `
  update api_keys set last_used_at = now()
   where id = $1`,
);
