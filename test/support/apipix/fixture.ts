// Test fixture: one PKI per test file, one PSP stub and one client per test (so counters and injected failures
// never leak between tests running in parallel).
import test, { type ExecutionContext } from 'ava';
import { createApiPixClient, type ApiPixClientOptions } from '../../../src/acquirer/apipix/client.ts';
import { ApiPixError } from '../../../src/acquirer/apipix/errors.ts';
import { startApiPixStub, type ApiPixStubOptions } from './stub.ts';
import { createTestCerts, type TestCerts } from './test-certs.ts';

export function apiPixFixture() {
  let certs: TestCerts | undefined;
  test.before(() => {
    certs = createTestCerts();
  });
  test.after.always(() => certs?.remove());
  const logs: string[] = [];
  const logger = {
    warn: (o: object, m: string) => {
      logs.push(JSON.stringify({ ...o, m }));
    },
    debug: (o: object, m: string) => {
      logs.push(JSON.stringify({ ...o, m }));
    },
  };

  async function setup(
    t: ExecutionContext,
    stubOpts: ApiPixStubOptions = {},
    clientOpts: Partial<ApiPixClientOptions> = {},
  ) {
    const stub = await startApiPixStub({ certs, ...stubOpts });
    const client = createApiPixClient({
      baseUrl: stub.baseUrl,
      clientId: stub.clientId,
      clientSecret: stub.clientSecret,
      cert: stub.clientCert,
      key: stub.clientKey,
      ca: stub.ca,
      pixKey: stub.pixKey,
      account: stub.account,
      timeoutMs: 5_000,
      retry: { limit: 2, baseDelayMs: 20, maxDelayMs: 100 },
      logger,
      ...clientOpts,
    });
    t.teardown(async () => {
      client.close();
      await stub.close();
    });
    return { stub, client };
  }

  return { certs: () => certs!, logs, setup };
}

export async function apiPixError(t: ExecutionContext, promise: Promise<unknown>): Promise<ApiPixError> {
  const err = await t.throwsAsync(promise);
  t.true(err instanceof ApiPixError, String(err));
  return err as ApiPixError;
}

export const totalCalls = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

let seq = 0;
// A fresh cob txid (26..35 alphanumerics).
export const newTxid = () =>
  `tx${Date.now()}${process.pid}${String(++seq).padStart(5, '0')}abcdefghijklmn`.slice(0, 35);
