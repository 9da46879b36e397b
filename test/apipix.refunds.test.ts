// Partial refunds with a PSP: each refund is its own devolução (PUT /v2/pix/{e2eid}/devolucao/{id}, id the refund's,
// `natureza: ORIGINAL`, the reason as `descricao`), the PSP stub holds several per Pix, and every body it receives
// conforms to the Banco Central's schemas. The API, a worker and the stub over mTLS.
import test from 'ava';
import { startTestApp, startBackground, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { waitFor } from './withdrawals.helpers.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { createApiPixHttp } from '../src/acquirer/apipix/http.ts';

const TOKEN = 'tok_' + 'c0ffee42'.repeat(5);
let certs: TestCerts;
let stub: ApiPixStub;
let app: TestApp;
let stopWorker: () => Promise<void>;

test.before(async () => {
  certs = createTestCerts();
  stub = await startApiPixStub({ certs });
  const env = { ...apiPixEnv(stub, certs.dir, TOKEN), APIPIX_TIMEOUT_MS: '3000' };
  app = await startTestApp(env);
  stopWorker = await startBackground(app, 'worker', env);
  stub.state.webhooks.set(stub.pixKey, { webhookUrl: `${app.baseUrl}/v1/acquirer/apipix/${TOKEN}` } as never);
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
  await stub?.close();
  certs?.remove();
});
test.afterEach.always(async (t) => {
  t.deepEqual(stub.schemaViolations, [], 'every body the PSP received conforms to the API Pix schemas');
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
});

type Merchant = Awaited<ReturnType<typeof createOnboardedMerchant>>;
const chargeOf = async (m: Merchant, id: string) => (await m.http.get(`/v1/charges/${id}`)).body.charge;
const refundOf = async (m: Merchant, chargeId: string, id: string) =>
  (await m.http.get(`/v1/charges/${chargeId}/refunds`)).body.refunds.find((r: { id: string }) => r.id === id);
const devolucao = (e2e: string, refundId: string) =>
  waitFor(`devolução ${refundId}`, async () =>
    stub.state.pix.get(e2e)?.devolucoes?.find((d) => d.id === refundId.replaceAll('-', '')),
  );

test.serial('three refunds of one Pix are three devoluções; each settles on its own', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = (await m.http.post('/v1/charges', { amount: 10_000, description: 'Pedido' })).body.charge;
  const { pix } = await stub.pay(c.txid);
  await waitFor('PAID', async () => (await chargeOf(m, c.id)).status === 'PAID');
  const a = (await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 2_500, reason: 'Item \u202Efaltando' })).body
    .refund;
  const b = (await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 4_000 })).body.refund;
  const da = await devolucao(pix.endToEndId, a.id);
  const db = await devolucao(pix.endToEndId, b.id);
  t.like(da, { valor: '25.00', natureza: 'ORIGINAL', descricao: 'Item faltando', status: 'EM_PROCESSAMENTO' });
  t.like(db, { valor: '40.00', natureza: 'ORIGINAL', status: 'EM_PROCESSAMENTO' });
  t.false('descricao' in db && db.descricao !== undefined, 'no reason: no descricao');
  await stub.settleDevolucao(pix.endToEndId, da.id, 'DEVOLVIDO');
  await stub.settleDevolucao(pix.endToEndId, db.id, 'NAO_REALIZADO', 'Conta do pagador encerrada');
  await waitFor('a COMPLETED', async () => (await refundOf(m, c.id, a.id)).status === 'COMPLETED');
  await waitFor('b FAILED', async () => (await refundOf(m, c.id, b.id)).status === 'FAILED');
  t.like(await chargeOf(m, c.id), { status: 'PAID', refundedAmount: 2_500 });
  t.deepEqual((await m.http.get('/v1/merchants/me/balance')).body, {
    available: 9_901 - (2_500 - 25),
    blocked: 0,
    currency: 'BRL',
  });
  // the rest (7500, the failed 4000 included) in one more devolução: the Pix's devoluções add up to its valor
  const rest = (await m.http.post(`/v1/charges/${c.id}/refund`)).body.refund;
  t.is(rest.amount, 7_500);
  const dr = await devolucao(pix.endToEndId, rest.id);
  t.is(dr.valor, '75.00');
  await stub.settleDevolucao(pix.endToEndId, dr.id, 'DEVOLVIDO');
  await waitFor('REFUNDED', async () => (await chargeOf(m, c.id)).status === 'REFUNDED');
  t.like(await chargeOf(m, c.id), { refundedAmount: 10_000 });
  // asked again on each notification (a repeated PUT of an id is the same devolução), never a second one
  t.deepEqual(
    stub.state.pix.get(pix.endToEndId)!.devolucoes!.map((d) => [d.id, d.valor, d.status]),
    [
      [da.id, '25.00', 'DEVOLVIDO'],
      [db.id, '40.00', 'NAO_REALIZADO'],
      [dr.id, '75.00', 'DEVOLVIDO'],
    ],
  );
  t.deepEqual((await m.http.get('/v1/merchants/me/balance')).body, { available: 0, blocked: 0, currency: 'BRL' });
});

test.serial(
  'the stub holds the standard: a body outside the API Pix schema is refused, and kept for the test',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = (await m.http.post('/v1/charges', { amount: 1_000, description: 'Pedido' })).body.charge;
    const { pix } = await stub.pay(c.txid);
    // what no client of ours can send (its amounts go through toWire): asked over the stub's own mTLS, by hand
    const http = createApiPixHttp({
      baseUrl: stub.baseUrl,
      clientId: stub.clientId,
      clientSecret: stub.clientSecret,
      cert: stub.clientCert,
      key: stub.clientKey,
      ca: stub.ca,
      retry: { limit: 0 },
    });
    t.teardown(() => http.close());
    const bad = { valor: '10.5', natureza: 'TROCA', descricao: 'x'.repeat(141) };
    const err = await t.throwsAsync(
      http.send({
        call: 'PUT',
        method: 'PUT',
        path: `v2/pix/${pix.endToEndId}/devolucao/manual1`,
        json: bad,
        idempotent: true,
      }),
    );
    t.regex(String(err?.message), /HTTP 400/);
    t.is(stub.schemaViolations.length, 1);
    const [seen] = stub.schemaViolations.splice(0); // taken, so the check after each test holds
    t.is(seen.route, 'PUT /v2/pix/:e2eid/devolucao/:id');
    const wrong = seen.violacoes.map((v) => v.propriedade);
    for (const field of ['/valor', '/descricao', '/natureza']) t.true(wrong.includes(field), wrong.join('; '));
    t.is(stub.state.pix.get(pix.endToEndId)?.devolucoes, undefined, 'nothing was recorded');
  },
);
