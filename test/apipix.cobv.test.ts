import test from 'ava';
import { startTestApp, startBackground, type TestApp } from './support/app.ts';
import { cpf, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { client } from './support/client.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';
import { createApiPixClient } from '../src/acquirer/apipix/client.ts';
import { ApiPixError } from '../src/acquirer/apipix/errors.ts';
import { expireCharges } from '../src/charges/charges.states.ts';
import { reconcilePayments } from '../src/payments/reconciliation.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { addDays, endOfSaoPauloDay, saoPauloDate } from '../src/charges/due-date.ts';

// Charges with a due date with ACQUIRER=apipix against the PSP stub (over mTLS): the cobv the PSP receives (checked
// against the BCB's schema by the stub, as every body it receives), its payments with componentesValor, returns and
// removal. The API's "today" is 40 days ago (a PSP's payment time is never believed ahead of the moment the service
// learns of it, so the payments after the due date happen in the past). Serial: the stub's state is shared.
const TOKEN = 'tok_' + 'c0b7c0b7'.repeat(5);
const TODAY = saoPauloDate(new Date(Date.now() - 40 * 86_400_000));
const NOW = new Date(endOfSaoPauloDay(TODAY).getTime() + 1000 - 14 * 3_600_000); // 10:00 that day
const day = (n: number) => addDays(TODAY, n);
// noon in São Paulo, n days from TODAY
const noon = (n: number) => new Date(endOfSaoPauloDay(day(n)).getTime() + 1000 - 12 * 3_600_000);
let certs: TestCerts;
let stub: ApiPixStub;
let app: TestApp;
let env: Record<string, string>;
let stopWorker: () => Promise<void>;

test.before(async () => {
  certs = createTestCerts();
  stub = await startApiPixStub({ certs });
  env = { ...apiPixEnv(stub, certs.dir, TOKEN), APIPIX_TIMEOUT_MS: '3000' };
  app = await startTestApp(env, { clock: () => new Date(NOW) });
  stopWorker = await startBackground(app, 'worker', env);
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
  // every body the service sent the PSP is one the standard allows (the stub would have answered 400)
  t.deepEqual(stub.schemaViolations, []);
});

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);
const statusOf = async (id: string) =>
  (await sql<{ status: string }>('select status from charges where id = ?', [id]))[0]?.status;
const waitStatus = (id: string, status: string) =>
  waitUntil(async () => (await statusOf(id)) === status, 15_000, `charge ${id} ${status}`);

const BODY = {
  amount: 10_000,
  description: 'Mensalidade de março',
  dueDate: day(2),
  validityAfterDueDays: 3650, // never swept while the tests run
  rebate: { mode: 'PERCENT', bps: 500 },
  discount: { mode: 'PERCENT_UNTIL', dates: [{ until: day(1), bps: 200 }] },
  fine: { mode: 'PERCENT', bps: 200 },
  interest: { mode: 'DAILY_AMOUNT', amount: 33 },
};
async function dueCharge(http: ReturnType<typeof client>, extra: object = {}) {
  const res = await http.post('/v1/charges', { ...BODY, customer: { name: 'Maria Silva', document: cpf() }, ...extra });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.charge;
}

test.serial(
  'a due-date charge is a cobv at the PSP: its calendar, payer and terms with the BCB modalidades',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await dueCharge(m.http, {
      customer: { name: 'Maria Silva', document: '52998224725' },
      interest: { mode: 'MONTHLY_PERCENT', bps: 150 },
    });
    const bodies = stub.bodies['PUT /v2/cobv/:txid'];
    t.deepEqual(bodies.at(-1), {
      calendario: { dataDeVencimento: day(2), validadeAposVencimento: 3650 },
      devedor: { cpf: '52998224725', nome: 'Maria Silva' },
      valor: {
        original: '100.00',
        abatimento: { modalidade: 2, valorPerc: '5.00' },
        desconto: { modalidade: 2, descontoDataFixa: [{ data: day(1), valorPerc: '2.00' }] },
        multa: { modalidade: 2, valorPerc: '2.00' },
        juros: { modalidade: 3, valorPerc: '1.50' },
      },
      chave: stub.pixKey,
      solicitacaoPagador: 'Mensalidade de março',
    });
    const cobv = stub.state.cobvs.get(c.txid)!;
    t.is(c.qrCode, cobv.pixCopiaECola);
    t.is(c.type, 'DUE_DATE');
    t.is(stub.calls['PUT /v2/cob/:txid'] ?? 0, 0);
    // every other modalidade, fixed amounts in reais
    await dueCharge(m.http, {
      rebate: { mode: 'FIXED', amount: 150 },
      discount: { mode: 'DAILY_PERCENT', bps: 5 },
      fine: { mode: 'FIXED', amount: 1_050 },
      interest: { mode: 'YEARLY_PERCENT', bps: 1_200 },
    });
    t.like(bodies.at(-1), {
      valor: {
        abatimento: { modalidade: 1, valorPerc: '1.50' },
        desconto: { modalidade: 5, valorPerc: '0.05' },
        multa: { modalidade: 1, valorPerc: '10.50' },
        juros: { modalidade: 4, valorPerc: '12.00' },
      },
    });
    await dueCharge(m.http, {
      discount: { mode: 'DAILY_AMOUNT', amount: 7 },
      interest: { mode: 'DAILY_PERCENT', bps: 3 },
      customer: { name: 'Escola Ltda', document: '11222333000181' },
    });
    t.like(bodies.at(-1), {
      devedor: { cnpj: '11222333000181', nome: 'Escola Ltda' },
      valor: { desconto: { modalidade: 3, valorPerc: '0.07' }, juros: { modalidade: 2, valorPerc: '0.03' } },
    });
    await dueCharge(m.http, { discount: { mode: 'FIXED_UNTIL', dates: [{ until: TODAY, amount: 99 }] } });
    t.like(bodies.at(-1), {
      valor: { desconto: { modalidade: 1, descontoDataFixa: [{ data: TODAY, valorPerc: '0.99' }] } },
    });
  },
);

test.serial('a cobv payment notified with its componentesValor settles the charge with them', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await dueCharge(m.http);
  // 2 days late: base 9500, fine 190, interest 66
  const { pix, notified } = await stub.pay(c.txid, { horario: noon(4) });
  t.is(notified, 200);
  t.is(pix.valor, '97.56');
  t.deepEqual(pix.componentesValor, {
    original: { valor: '100.00' },
    abatimento: { valor: '5.00' },
    multa: { valor: '1.90' },
    juros: { valor: '0.66' },
  });
  await waitStatus(c.id, 'PAID');
  const paid = (await m.http.get(`/v1/charges/${c.id}`)).body.charge;
  t.like(paid, {
    paidAmount: 9_756,
    components: { original: 10_000, rebate: 500, discount: 0, fine: 190, interest: 66, final: 9_756 },
    fee: 97,
    netAmount: 9_659,
  });
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 9_659);
  // before the due date, with the discount of its date (2% of the base)
  const early = await dueCharge(m.http);
  await stub.pay(early.txid, { horario: noon(1) });
  await waitStatus(early.id, 'PAID');
  t.like((await m.http.get(`/v1/charges/${early.id}`)).body.charge, {
    paidAmount: 9_310,
    components: { rebate: 500, discount: 190, fine: 0, interest: 0, final: 9_310 },
  });
  t.true((await verifyLedger(app.orm.em.fork())).ok);
});

test.serial(
  'componentesValor that disagree with ours, or another amount, pay nothing: returned by a devolução',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await dueCharge(m.http);
    const horario = noon(3); // 1 day late: 9500 + 190 + 33 = 97.23
    // the payer's PSP counted no fine: the same total by chance is still another computation
    const odd = await stub.pay(c.txid, { horario, components: { fine: 0, interest: 223 } });
    t.is(odd.pix.valor, '97.23');
    const wrong = await stub.pay(c.txid, { horario, amount: 9_500 });
    for (const p of [odd.pix, wrong.pix]) {
      const u = await waitUntil(
        async () => (await sql('select * from unmatched_payments where end_to_end_id = ?', [p.endToEndId]))[0],
        15_000,
        'unmatched',
      );
      t.like(u, { reason: 'AMOUNT_MISMATCH', txid: c.txid });
      const devolucao = await waitUntil(
        async () => stub.state.pix.get(p.endToEndId)?.devolucoes?.[0],
        15_000,
        'devolução',
      );
      t.is(devolucao.valor, p.valor);
    }
    t.is(await statusOf(c.id), 'PENDING');
    t.true((await verifyLedger(app.orm.em.fork())).ok);
  },
);

test.serial('a componentesValor that breaks the standard is not read: the exact amount pays the charge', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await dueCharge(m.http);
  const { pix } = await stub.pay(c.txid, { horario: noon(2), notify: false });
  stub.state.pix.get(pix.endToEndId)!.componentesValor = { original: { valor: '100' } }; // not \d.\d{2}
  t.is((await client(app.baseUrl).post(`/v1/acquirer/apipix/${TOKEN}/pix`, { pix: [pix] })).status, 200);
  await waitStatus(c.id, 'PAID');
  t.like((await m.http.get(`/v1/charges/${c.id}`)).body.charge, { paidAmount: 9_500, components: { final: 9_500 } });
});

test.serial('reconciliation settles a cobv payment the PSP never notified', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await dueCharge(m.http);
  const horario = noon(2); // on the due date
  await stub.pay(c.txid, { horario, notify: false });
  const hour = 3_600_000;
  const found = await reconcilePayments(
    app.deps,
    new Date(horario.getTime() - hour),
    new Date(horario.getTime() + hour),
  );
  t.is(found, 1);
  await waitStatus(c.id, 'PAID');
  t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.paidAmount, 9_500);
});

test.serial('an expired due-date charge is removed at the PSP with PATCH cobv', async (t) => {
  const past = await startTestApp(env, {
    databaseUrl: app.databaseUrl,
    clock: () => new Date('2025-01-31T12:00:00Z'),
  });
  t.teardown(() => past.close());
  const m = await createOnboardedMerchant(past);
  const c = await dueCharge(m.http, {
    dueDate: '2025-01-31',
    validityAfterDueDays: 0,
    discount: null,
  });
  await expireCharges(app.deps, app.orm.em.fork()); // or the worker's sweep, whichever comes first
  await waitUntil(
    async () => stub.state.cobvs.get(c.txid)?.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    15_000,
    'cobv removed',
  );
  t.deepEqual(stub.bodies['PATCH /v2/cobv/:txid'].at(-1), { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
  t.is(stub.calls['PATCH /v2/cob/:txid'] ?? 0, 0);
  t.is(await statusOf(c.id), 'CANCELED');
});

test.serial('the stub refuses, as a PSP would, a body the standard does not allow', async (t) => {
  const psp = createApiPixClient({
    baseUrl: stub.baseUrl,
    clientId: stub.clientId,
    clientSecret: stub.clientSecret,
    cert: stub.clientCert,
    key: stub.clientKey,
    ca: stub.ca,
    pixKey: stub.pixKey,
    retry: { limit: 0 },
  });
  t.teardown(() => psp.close());
  const err = await t.throwsAsync(
    psp.putCobV('badcobv0000000000000000000001', {
      dataDeVencimento: day(10),
      validadeAposVencimento: 1,
      amount: 1_000,
      terms: { rebate: null, discount: null, fine: null, interest: null },
      devedor: { cpf: '123', nome: 'Maria' }, // not 11 digits
    }),
  );
  t.true(err instanceof ApiPixError && err.kind === 'refused' && err.status === 400, String(err));
  t.is(stub.schemaViolations.length, 1);
  t.like(stub.schemaViolations[0], { route: 'PUT /v2/cobv/:txid' });
  t.true(stub.schemaViolations[0].violacoes.some((v) => v.propriedade === '/devedor/cpf'));
  t.false(stub.state.cobvs.has('badcobv0000000000000000000001'));
  stub.schemaViolations.length = 0; // seen: the afterEach check is for the service's own bodies
});
