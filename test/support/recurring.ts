// Pix Automático's receivers are companies: a valid CNPJ (check digits computed) and an onboarded merchant with one.
import { createOnboardedMerchant } from './factories.ts';
import type { TestApp } from './app.ts';

export function cnpj(): string {
  const d = Array.from({ length: 8 }, () => Math.floor(Math.random() * 10)).concat([0, 0, 0, 1]);
  for (const weights of [
    [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
    [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
  ]) {
    const r = weights.reduce((s, w, i) => s + w * d[i], 0) % 11;
    d.push(r < 2 ? 0 : 11 - r);
  }
  return d.join('');
}

// An onboarded merchant (KYC approved, acquirer, ACTIVE PIX key) whose document is then made a CNPJ, operator-side.
export async function createCnpjMerchant(app: TestApp) {
  const m = await createOnboardedMerchant(app);
  await app.orm.em.fork().execute('update merchants set document = ? where id = ?', [cnpj(), m.merchantId]);
  return m;
}
