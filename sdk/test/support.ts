import { startBackground, startTestApp, type TestApp } from '../../test/support/app.ts';
import { createApiKeyFor, createOnboardedMerchant } from '../../test/support/factories.ts';
import { createPixClient } from '../src/index.ts';

// The whole service as an integrator meets it: the API, the worker (payments, withdrawals) and the webhook daemon
// over one database, started the way the service's own tests start them.
export async function startService(): Promise<{ app: TestApp; close: () => Promise<void> }> {
  const app = await startTestApp();
  const stops = [await startBackground(app, 'worker'), await startBackground(app, 'webhooks')];
  return {
    app,
    async close() {
      for (const stop of stops) await stop();
      await app.close();
    },
  };
}

// A valid CNPJ (check digits computed), so every company can have its own.
function cnpj(): string {
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

// A merchant that can take charges, with the API key its server would use and an SDK client on it. `company`: its
// document is a CNPJ (set operator-side), as Pix Automático requires.
export async function integrator(app: TestApp, { company = false } = {}) {
  const merchant = await createOnboardedMerchant(app);
  if (company)
    await app.orm.em.fork().execute('update merchants set document = ? where id = ?', [cnpj(), merchant.merchantId]);
  const apiKey = await createApiKeyFor(app, merchant.token);
  return { ...merchant, apiKey, pix: createPixClient({ baseUrl: app.baseUrl, token: apiKey }) };
}
