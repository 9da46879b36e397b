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

// A merchant that can take charges, with the API key its server would use and an SDK client on it.
export async function integrator(app: TestApp) {
  const merchant = await createOnboardedMerchant(app);
  const apiKey = await createApiKeyFor(app, merchant.token);
  return { ...merchant, apiKey, pix: createPixClient({ baseUrl: app.baseUrl, token: apiKey }) };
}
