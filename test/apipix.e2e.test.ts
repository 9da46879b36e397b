import test from 'ava';
import { startTestApp, startBackground, type TestApp } from './support/app.ts';
import { createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { client } from './support/client.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';

// The service with ACQUIRER=apipix against the PSP stub, over real HTTPS with mTLS: the API, a worker, the PSP's
// webhook calling the API back. Tests run serially: failures injected into the stub are global.
const TOKEN = 'tok_' + 'a1b2c3d4'.repeat(5);
let certs: TestCerts;
let stub: ApiPixStub;
let app: TestApp;
let stopWorker: () => Promise<void>;

test.before(async () => {
  certs = createTestCerts();
  stub = await startApiPixStub({ certs });
  const env = {
    ...apiPixEnv(stub, certs.dir, TOKEN),
    APIPIX_TIMEOUT_MS: '3000',
    WITHDRAWAL_RECONCILE_AFTER_SECONDS: '1',
  };
  app = await startTestApp(env);
  stopWorker = await startBackground(app, 'worker', env);
  // what `npm run ops -- acquirer:webhook` registers (it requires a public https URL, which a test has not)
  stub.state.webhooks.set(stub.pixKey, {
    webhookUrl: `${app.baseUrl}/v1/acquirer/apipix/${TOKEN}`,
    chave: stub.pixKey,
  } as never);
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
  await stub?.close();
  certs?.remove();
});
test.afterEach.always((t) => {
  stub.clearFailures();
  t.deepEqual(stub.schemaViolations, [], 'every body the PSP received conforms to the API Pix schemas');
});

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);

async function charge(http: ReturnType<typeof client>, amount = 1050, headers: Record<string, string> = {}) {
  const res = await http.post('/v1/charges', { amount, description: 'Pedido' }, headers);
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.charge as { id: string; txid: string; qrCode: string; status: string };
}

const statusOf = async (id: string) =>
  (await sql<{ status: string }>('select status from charges where id = ?', [id]))[0]?.status;
const waitStatus = (id: string, status: string) =>
  waitUntil(async () => (await statusOf(id)) === status, 15_000, `charge ${id} ${status}`);

async function ledgerClean(t: import('ava').ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
}

test.serial(
  'what the payer reads reaches the PSP without bidi controls, cut at 140 code points between characters',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const res = await m.http.post('/v1/charges', {
      amount: 1200,
      description: `\u202E${'a'.repeat(139)}😀😀`,
      customer: { name: 'Maria \u202ESilva', document: '52998224725' },
    });
    t.is(res.status, 201);
    const cob = stub.state.cobs.get(res.body.charge.txid)!;
    t.is(cob.solicitacaoPagador, `${'a'.repeat(139)}😀`); // `slice(0, 140)` left half of the emoji
    t.is(cob.devedor?.nome, 'Maria Silva');
  },
);

test.serial(
  'a charge is a cob at the PSP: the amount as the standard decimal, the QR code its pixCopiaECola',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await charge(m.http, 1050);
    const cob = stub.state.cobs.get(c.txid)!;
    t.truthy(cob);
    t.is(cob.valor.original, '10.50');
    t.is(c.qrCode, cob.pixCopiaECola ?? '');
    t.is(c.status, 'PENDING');
  },
);

test.serial(
  'a Pix notified by the PSP (with and without /pix, several at once) is re-read and pays its charges',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const [a, b] = [await charge(m.http, 1000), await charge(m.http, 2000)];
    const pa = stub.state.pix.size;
    const { pix: p1 } = await stub.pay(a.txid, { notify: false });
    const { pix: p2 } = await stub.pay(b.txid, { notify: false });
    t.is(stub.state.pix.size, pa + 2);
    const before = stub.calls['GET /v2/pix/:e2eid'] ?? 0;
    const res = await client(app.baseUrl).post(`/v1/acquirer/apipix/${TOKEN}/pix`, { pix: [p1, p2] });
    t.is(res.status, 200);
    await waitStatus(a.id, 'PAID');
    await waitStatus(b.id, 'PAID');
    t.true((stub.calls['GET /v2/pix/:e2eid'] ?? 0) >= before + 2, 'each Pix re-read from the PSP');
    const balance = await m.http.get('/v1/merchants/me/balance');
    t.is(balance.body.available, 1000 - 10 + 2000 - 20);
    // the PSP's own callback, without the /pix suffix being needed
    const c = await charge(m.http, 500);
    const { pix: p3 } = await stub.pay(c.txid, { notify: false });
    t.is((await client(app.baseUrl).post(`/v1/acquirer/apipix/${TOKEN}`, { pix: [p3] })).status, 200);
    await waitStatus(c.id, 'PAID');
    await ledgerClean(t);
  },
);

test.serial(
  'forged notifications change nothing: a wrong token is 401, an e2eid the PSP does not know is ignored',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await charge(m.http, 700);
    const forged = {
      endToEndId: 'E00000000202611241200abcdefghijk',
      txid: c.txid,
      valor: '7.00',
      horario: new Date().toISOString(),
    };
    const wrong = await client(app.baseUrl).post(`/v1/acquirer/apipix/${'x'.repeat(40)}/pix`, { pix: [forged] });
    t.is(wrong.status, 401);
    t.is(typeof wrong.body.message, 'string');
    const accepted = await client(app.baseUrl).post(`/v1/acquirer/apipix/${TOKEN}/pix`, { pix: [forged] });
    t.is(accepted.status, 200); // accepted for checking, then refused by the PSP's answer
    await waitUntil(
      async () =>
        (
          await sql(`select 1 from pgboss.job where name = ? and data->>'endToEndId' = ? and state = 'completed'`, [
            QUEUES.acquirerNotification,
            forged.endToEndId,
          ])
        ).length > 0,
      15_000,
      'the forged notification handled',
    );
    t.is(await statusOf(c.id), 'PENDING');
    t.is((await sql('select 1 from unmatched_payments where end_to_end_id = ?', [forged.endToEndId])).length, 0);
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 0);
  },
);

test.serial(
  'the PSP down: 503 with a message, no charge left behind; the same idempotency key then succeeds',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    stub.failNext(20, { status: 503, body: { title: 'Serviço indisponível' } }, { route: 'PUT /v2/cob/:txid' });
    const key = { 'x-idempotency-key': 'pedido-psp-down' };
    const down = await m.http.post('/v1/charges', { amount: 900, description: 'Pedido' }, key);
    t.is(down.status, 503);
    t.regex(down.body.message, /./);
    t.is((await sql('select 1 from charges where merchant_id = ?', [m.merchantId])).length, 0);
    stub.clearFailures();
    const up = await m.http.post('/v1/charges', { amount: 900, description: 'Pedido' }, key);
    t.is(up.status, 201);
    t.truthy(stub.state.cobs.get(up.body.charge.txid));
    const refused =
      (stub.failNext(1, { status: 400, body: { title: 'Cobrança inválida' } }, { route: 'PUT /v2/cob/:txid' }),
      await m.http.post('/v1/charges', { amount: 900, description: 'Pedido' }));
    t.is(refused.status, 502);
    t.is((await sql('select 1 from charges where merchant_id = ?', [m.merchantId])).length, 1);
  },
);

test.serial('reconciliation settles a Pix the PSP never notified', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await charge(m.http, 1234);
  await stub.pay(c.txid, { notify: false });
  await app.boss.send(QUEUES.paymentsReconcile, {});
  await waitStatus(c.id, 'PAID');
  await ledgerClean(t);
});

test.serial('money that pays no charge is held and returned to the payer by a devolução', async (t) => {
  const m = await createOnboardedMerchant(app);
  const paid = await charge(m.http, 1000);
  await stub.pay(paid.txid);
  await waitStatus(paid.id, 'PAID');
  const wrongAmount = await charge(m.http, 1000);
  const cases = [
    (await stub.pay(paid.txid.slice(0, -4) + 'zzzz', { amount: 300 })).pix, // unknown txid
    (await stub.pay(wrongAmount.txid, { amount: 999 })).pix, // wrong amount
  ];
  for (const p of cases) {
    const u = await waitUntil(
      async () =>
        (
          await sql<{ id: string; status: string; reason: string }>(
            'select * from unmatched_payments where end_to_end_id = ?',
            [p.endToEndId],
          )
        )[0],
      15_000,
      `unmatched ${p.endToEndId}`,
    );
    t.is(u.status, 'RETURNING');
    const devolucao = await waitUntil(
      async () => stub.state.pix.get(p.endToEndId)?.devolucoes?.[0],
      15_000,
      'devolução',
    );
    t.is(devolucao.valor, p.valor);
    await stub.settleDevolucao(p.endToEndId, devolucao.id, 'DEVOLVIDO');
    await waitUntil(
      async () =>
        (
          await sql<{ status: string }>('select status from unmatched_payments where end_to_end_id = ?', [p.endToEndId])
        )[0].status === 'RETURNED',
      15_000,
      'RETURNED',
    );
  }
  t.is(await statusOf(wrongAmount.id), 'PENDING');
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 990);
  await ledgerClean(t);
});

test.serial('a refund is final when the PSP says so: DEVOLVIDO -> REFUNDED; NAO_REALIZADO -> PAID again', async (t) => {
  const m = await createOnboardedMerchant(app);
  const [a, b] = [await charge(m.http, 2000), await charge(m.http, 3000)];
  const { pix: pa } = await stub.pay(a.txid);
  const { pix: pb } = await stub.pay(b.txid);
  await waitStatus(a.id, 'PAID');
  await waitStatus(b.id, 'PAID');
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 1980 + 2970);

  const ra = await m.http.post(`/v1/charges/${a.id}/refund`, {});
  t.is(ra.status, 202);
  t.is(ra.body.refund.status, 'PROCESSING');
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 2970, 'held out of available at once');
  const da = await waitUntil(async () => stub.state.pix.get(pa.endToEndId)?.devolucoes?.[0], 15_000, 'devolução a');
  t.is(da.valor, '20.00');
  t.is(await statusOf(a.id), 'PAID', 'not REFUNDED before the PSP confirms');
  await stub.settleDevolucao(pa.endToEndId, da.id, 'DEVOLVIDO');
  await waitStatus(a.id, 'REFUNDED');
  t.is((await sql(`select 1 from events where type = 'charge.refunded' and data->>'id' = ?`, [a.id])).length, 1);

  const rb = await m.http.post(`/v1/charges/${b.id}/refund`, {});
  t.is(rb.status, 202);
  const db = await waitUntil(async () => stub.state.pix.get(pb.endToEndId)?.devolucoes?.[0], 15_000, 'devolução b');
  await stub.settleDevolucao(pb.endToEndId, db.id, 'NAO_REALIZADO', 'Conta do pagador encerrada');
  await waitUntil(
    async () =>
      (await sql<{ status: string }>('select status from refunds where charge_id = ?', [b.id]))[0].status === 'FAILED',
    15_000,
    'refund FAILED',
  );
  t.is(await statusOf(b.id), 'PAID');
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 2970, 'the hold restored');
  t.is((await sql(`select 1 from events where type = 'charge.refunded' and data->>'id' = ?`, [b.id])).length, 0);
  await ledgerClean(t);
});

test.serial(
  'withdrawals are envios by idEnvio: REALIZADO completes, NAO_REALIZADO fails and restores the balance',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await charge(m.http, 10_000);
    await stub.pay(c.txid);
    await waitStatus(c.id, 'PAID');
    const body = (amount: number) => ({ amount, pixKeyType: 'EMAIL', pixKey: 'destino@example.com' });
    const w1 = await m.http.post('/v1/merchants/me/withdrawals', body(3000));
    const w2 = await m.http.post('/v1/merchants/me/withdrawals', body(2000));
    t.is(w1.status, 201);
    t.is(w2.status, 201);
    const envios = await waitUntil(
      async () => (stub.state.envios.size >= 2 ? [...stub.state.envios.values()] : null),
      15_000,
      'envios',
    );
    const byAmount = (v: string) => envios.find((e) => e.valor === v)!;
    t.truthy(byAmount('30.00'));
    stub.settleEnvio(byAmount('30.00').idEnvio, 'REALIZADO');
    stub.settleEnvio(byAmount('20.00').idEnvio, 'NAO_REALIZADO');
    // the outcome is learnt by reconciliation (GET /v2/gn/pix/enviados/id-envio/:idEnvio), run here without its cron
    let nudged = 0;
    const statusW = async (id: string) => {
      if (Date.now() - nudged > 1500) {
        nudged = Date.now();
        await app.boss.send(QUEUES.withdrawalReconcile, {});
      }
      return (await m.http.get(`/v1/merchants/me/withdrawals/${id}`)).body.withdrawal.status;
    };
    await waitUntil(async () => (await statusW(w1.body.withdrawal.id)) === 'COMPLETED', 20_000, 'w1 COMPLETED');
    await waitUntil(async () => (await statusW(w2.body.withdrawal.id)) === 'FAILED', 20_000, 'w2 FAILED');
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 9901 - 3000); // 10000 - 99 (0.99 %) - 3000
    t.is(stub.calls['PUT /v3/gn/pix/:idEnvio'], 2, 'each transfer sent once');
    await ledgerClean(t);
  },
);

test.serial('the sandbox routes do not exist with a real PSP', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await charge(m.http, 100);
  t.is((await m.http.post(`/v1/sandbox/charges/${c.id}/pay`)).status, 404);
  const fresh = await createMerchant(app);
  t.is((await fresh.http.post('/v1/sandbox/onboarding')).status, 404, 'no self-onboarding with a real PSP');
  t.is((await fresh.http.get('/v1/merchants/me')).body.merchant.kycStatus, 'PENDING');
  const portal = await (await fetch(`${app.baseUrl}/portal`)).text();
  t.notRegex(portal, /portal-sandbox/, "the portal shows none of the sandbox's buttons");
  t.regex(portal, /<html lang="pt-BR">/);
});

test.serial(
  'MED with a PSP: polled infractions open once, the defence is forwarded, ACEITA refunds the payer',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await charge(m.http, 4000);
    const { pix } = await stub.pay(c.txid);
    await waitStatus(c.id, 'PAID');
    const infracao = stub.openInfracao({ endToEndId: pix.endToEndId, amount: 4000 });
    const poll = () => app.boss.send(QUEUES.infractionsPoll, {});
    const find = async () =>
      (
        await sql<{ id: string; status: string }>('select id, status from infractions where acquirer_id = ?', [
          infracao.idInfracao,
        ])
      )[0];
    await poll();
    const opened = await waitUntil(find, 15_000, 'infraction opened');
    await poll();
    await waitUntil(
      async () =>
        (await sql(`select 1 from pgboss.job where name = ? and state = 'completed'`, [QUEUES.infractionsPoll]))
          .length >= 2,
      15_000,
      'second poll',
    );
    t.is(
      (await sql('select 1 from infractions where acquirer_id = ?', [infracao.idInfracao])).length,
      1,
      'opened once',
    );
    t.deepEqual((await m.http.get('/v1/merchants/me/balance')).body, { available: 0, blocked: 3960, currency: 'BRL' });

    const defended = await m.http.post(`/v1/infractions/${opened.id}/defense`, { text: 'Entregue ao cliente.' });
    t.is(defended.status, 200);
    t.is(stub.state.infracoes.get(infracao.idInfracao)!.status, 'EM_DEFESA');

    stub.setInfracaoStatus(infracao.idInfracao, 'ACEITA');
    await poll();
    await waitUntil(async () => (await find()).status === 'ACCEPTED', 15_000, 'ACCEPTED');
    await waitStatus(c.id, 'REFUNDED');
    t.deepEqual((await m.http.get('/v1/merchants/me/balance')).body, { available: 0, blocked: 0, currency: 'BRL' });
    await ledgerClean(t);
  },
);
