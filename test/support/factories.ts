import { randomBytes } from 'node:crypto';
import { Merchant } from '../../src/merchants/merchant.entity.ts';
import { client } from './client.ts';
import type { TestApp } from './app.ts';

// Valid CPFs are generated, not hard-coded, so every merchant can have its own.
export function cpf(): string {
  const d = Array.from({ length: 9 }, () => Math.floor(Math.random() * 10));
  if (new Set(d).size === 1) d[0] = (d[0] + 1) % 10;
  for (const len of [9, 10]) {
    const sum = d.slice(0, len).reduce((s, n, i) => s + n * (len + 1 - i), 0);
    d.push(((sum * 10) % 11) % 10);
  }
  return d.join('');
}

export type MerchantOptions = {
  kyc?: 'PENDING' | 'APPROVED' | 'REJECTED';
  acquirer?: boolean;
  status?: 'ACTIVE' | 'BLOCKED';
  pixKey?: boolean;
};

// Registers a merchant through the API (as a person would), then applies operator-side state directly.
export async function createMerchant(app: TestApp, opts: MerchantOptions = {}) {
  const email = `m-${randomBytes(6).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const reg = await client(app.baseUrl).post('/v1/auth/register', {
    email,
    password,
    name: 'Loja Teste',
    document: cpf(),
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const em = app.orm.em.fork();
  const merchant = await em.findOneOrFail(Merchant, { user: reg.body.user.id });
  if (opts.kyc) merchant.kycStatus = opts.kyc;
  if (opts.acquirer) merchant.acquirerAccountId = `sandbox-${randomBytes(4).toString('hex')}`;
  if (opts.status) merchant.status = opts.status;
  await em.flush();
  const token: string = reg.body.token;
  if (opts.pixKey) {
    const key = await client(app.baseUrl, token).post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: email });
    if (key.status !== 201) throw new Error(`pix key failed: ${key.status} ${JSON.stringify(key.body)}`);
  }
  return {
    email,
    password,
    token,
    userId: reg.body.user.id as string,
    merchantId: merchant.id,
    http: client(app.baseUrl, token),
  };
}

export async function createApiKeyFor(app: TestApp, token: string): Promise<string> {
  const res = await client(app.baseUrl, token).post('/v1/api-keys', {
    name: 'server',
    description: 'backend integration',
  });
  if (res.status !== 201) throw new Error(`api key failed: ${res.status}`);
  return res.body.apiKey.value;
}

// A merchant that can take charges: KYC approved, acquirer account configured, an ACTIVE PIX key.
export const createOnboardedMerchant = (app: TestApp) =>
  createMerchant(app, { kyc: 'APPROVED', acquirer: true, pixKey: true });
