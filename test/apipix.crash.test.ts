import test from 'ava';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout } from 'node:timers/promises';
import { startTestApp, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';

// A worker process killed (SIGKILL) while its transfer is at the PSP and before it recorded the answer: the next
// worker sends the same idEnvio again, the PSP answers with the transfer it already has, and the withdrawal ends once.
const TOKEN = 'tok_' + 'f0e1d2c3'.repeat(5);
let certs: TestCerts;
let stub: ApiPixStub;
let app: TestApp;
let env: Record<string, string>;
const children = new Set<ChildProcess>();

test.before(async () => {
  certs = createTestCerts();
  stub = await startApiPixStub({ certs });
  env = {
    ...apiPixEnv(stub, certs.dir, TOKEN),
    WITHDRAWAL_RECONCILE_AFTER_SECONDS: '1',
  };
  app = await startTestApp(env);
});
test.after.always(async () => {
  for (const c of children) c.kill('SIGKILL');
  await app?.close();
  await stub?.close();
  certs?.remove();
});

async function startWorker(): Promise<ChildProcess> {
  const child = fork('apps/worker/main.ts', [], {
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: app.databaseUrl, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m) => m === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
  });
  return child;
}

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);

test('a worker killed between sending a transfer and recording it: sent once, completed once', async (t) => {
  const m = await createOnboardedMerchant(app);
  const first = await startWorker();
  const c = (await m.http.post('/v1/charges', { amount: 5000, description: 'Pedido' })).body.charge;
  await stub.pay(c.txid, { notify: false });
  await app.boss.send(QUEUES.paymentsReconcile, {});
  await waitUntil(async () => (await m.http.get('/v1/merchants/me/balance')).body.available > 0, 20_000, 'paid');

  // the PSP takes the envio at once but answers 30 s later: the worker dies waiting for the answer (it would time out
  // at 10 s and send the PUT again, which must not answer either, or the worker could record it before it dies)
  stub.failNext(3, { delayMs: 30_000, after: true }, { route: 'PUT /v3/gn/pix/:idEnvio' });
  const w = await m.http.post('/v1/merchants/me/withdrawals', {
    amount: 1000,
    pixKeyType: 'EMAIL',
    pixKey: 'destino@example.com',
  });
  t.is(w.status, 201);
  await waitUntil(async () => stub.state.envios.size === 1, 20_000, 'the envio at the PSP');
  const exited = once(first, 'exit');
  first.kill('SIGKILL');
  await exited;
  const [envio] = [...stub.state.envios.values()];
  stub.settleEnvio(envio.idEnvio, 'REALIZADO');
  const [unrecorded] = await sql<{ status: string; batch_id: string | null }>(
    `select status, batch_id from withdrawals where id = ?`,
    [w.body.withdrawal.id],
  );
  t.deepEqual(unrecorded, { status: 'PROCESSING', batch_id: null }, 'the PSP answer was never recorded');

  // the next worker comes up once the withdrawal is older than the reconciliation window (1 s here), as a worker
  // restarted by the platform would: its reconciliation at start finds it, asks the PSP and completes it
  await setTimeout(1_500);
  await startWorker();
  const statusOf = async () =>
    (await m.http.get(`/v1/merchants/me/withdrawals/${w.body.withdrawal.id}`)).body.withdrawal;
  const done = await waitUntil(async () => (await statusOf()).status === 'COMPLETED', 60_000, 'COMPLETED');
  t.truthy(done);
  t.is(stub.state.envios.size, 1, 'one transfer at the PSP');
  t.is(
    (await sql(`select 1 from events where type = 'withdraw.completed' and data->>'id' = ?`, [w.body.withdrawal.id]))
      .length,
    1,
  );
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 5000 - 50 - 1000);
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
});
