import pg from 'pg';
import { randomBytes } from 'node:crypto';

async function call(base: string, method: string, path: string, body?: object, token?: string) {
  const res = await fetch(base + path, {
    method,
    body: body ? JSON.stringify(body) : undefined,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// An onboarded merchant with an API key, made the way a merchant and an operator would (API + operator SQL).
export async function onboardMerchant(base: string, databaseUrl: string) {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const reg = await call(base, 'POST', '/v1/auth/register', {
    email,
    password: 'bench password',
    name: 'Loja Benchmark',
    document: '11222333000181',
  });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const { rows } = await db.query(
    `update merchants set kyc_status = 'APPROVED', acquirer_account_id = 'bench' where user_id = $1 returning id`,
    [reg.user.id],
  );
  await db.end();
  await call(base, 'POST', '/v1/merchants/me/pix-keys', { type: 'EMAIL', key: email }, reg.token);
  const key = await call(base, 'POST', '/v1/api-keys', { name: 'bench', description: 'load test' }, reg.token);
  return {
    email,
    merchantId: rows[0].id as string,
    token: reg.token as string,
    apiKey: key.apiKey.value as string,
    call: (m: string, p: string, b?: object) => call(base, m, p, b, key.apiKey.value),
  };
}
