import test from 'ava';
import { startTestApp, startBackground, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { acquirerCommands } from '../src/acquirer/acquirer.ops.ts';
import { pollRecurring } from '../src/recurring/recurring.poll.ts';
import { cnpj } from './support/recurring.ts';

// Pix Automático with ACQUIRER=apipix against the PSP stub: the API, a worker, and the PSP calling back (Pix, rec and
// cobr webhooks) over real HTTP. The payer's side is the stub's. Serial: the stub's failures and webhooks are global.
const TOKEN = 'tok_' + 'r3c0bR9x'.repeat(5);
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
  // what `npm run ops -- acquirer:webhook` registers: one URL for Pix, rec and cobr (the PSP appends /pix, /rec, /cobr)
  const webhookUrl = `${app.baseUrl}/v1/acquirer/apipix/${TOKEN}`;
  stub.state.webhooks.set(stub.pixKey, { webhookUrl, chave: stub.pixKey } as never);
  stub.state.recWebhooks.rec = webhookUrl;
  stub.state.recWebhooks.cobr = webhookUrl;
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
const today = () => saoPauloDate(new Date());

async function company() {
  const m = await createMerchant(app, { kyc: 'APPROVED', acquirer: true, pixKey: true });
  await sql('update merchants set document = ? where id = ?', [cnpj(), m.merchantId]);
  return m;
}
type Http = Awaited<ReturnType<typeof company>>['http'];

async function mandate(http: Http, over: Record<string, unknown> = {}) {
  const res = await http.post('/v1/mandates', {
    journey: 'QR',
    customer: { name: 'Maria Souza', document: '52998224725' },
    contract: 'CT-2026-0001',
    object: 'Plano mensal',
    frequency: 'MONTHLY',
    startDate: plusDays(today(), 3),
    amount: 9990,
    ...over,
  });
  if (res.status !== 201) throw new Error(`mandate: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.mandate as { id: string; recId: string; status: string; qrCode: string };
}

const mandateStatus = async (http: Http, id: string) => (await http.get(`/v1/mandates/${id}`)).body.mandate.status;
const waitMandate = (http: Http, id: string, status: string) =>
  waitUntil(async () => (await mandateStatus(http, id)) === status, 15_000, `mandate ${id} ${status}`);
const chargeOf = async (http: Http, id: string) => (await http.get(`/v1/recurring-charges/${id}`)).body.recurringCharge;
const waitCharge = (http: Http, id: string, check: (c: any) => boolean, what: string) =>
  waitUntil(async () => check(await chargeOf(http, id)), 15_000, `recurring charge ${id} ${what}`);

// An approved mandate (the payer approved at the PSP, its callback arrived) and one cycle's charge, ACTIVE.
async function activeCharge(http: Http, over: Record<string, unknown> = {}) {
  const md = await mandate(http, over);
  t0(await stub.approveRec(md.recId));
  await waitMandate(http, md.id, 'APPROVED');
  const dueDate = plusDays(today(), 3);
  const res = await http.post(`/v1/mandates/${md.id}/charges`, { dueDate, amount: 9990, description: 'Mensalidade' });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  const rc = res.body.recurringCharge;
  await waitUntil(async () => stub.state.cobrs.has(rc.txid), 15_000, 'the cobr at the PSP');
  t0(await stub.activateCobR(rc.txid));
  await waitCharge(http, rc.id, (c) => c.status === 'ACTIVE', 'ACTIVE');
  return { md, rc, dueDate };
}
const t0 = (status: number | null) => {
  if (status !== 200) throw new Error(`callback answered ${status}`);
};

test.serial(
  'a mandate approved at the PSP, a recurring charge ACTIVE, its attempt paid: PAID and credited',
  async (t) => {
    const m = await company();
    const md = await mandate(m.http);
    t.regex(md.recId, /^RN12345678\d{8}[A-Za-z0-9]{11}$/);
    t.is(md.status, 'CREATED');
    const rec = stub.state.recs.get(md.recId)!;
    t.like(rec, { status: 'CRIADA', valor: { valorRec: '99.90' }, politicaRetentativa: 'NAO_PERMITE' });
    t.true(md.qrCode.includes(rec.loc!.location), 'the QR carries the rec location');

    const before = stub.calls['GET /v2/rec/:idRec'] ?? 0;
    t.is(await stub.approveRec(md.recId), 200);
    await waitMandate(m.http, md.id, 'APPROVED');
    t.true((stub.calls['GET /v2/rec/:idRec'] ?? 0) > before, 'the rec re-read from the PSP');
    // the PSP repeats its callback, and the poll finds the same change: nothing happens twice
    const seen = stub.calls['GET /v2/rec/:idRec'] ?? 0;
    t.is(await stub.resendRec(md.recId), 200);
    await waitUntil(async () => (stub.calls['GET /v2/rec/:idRec'] ?? 0) > seen, 15_000, 'the repeat re-read');
    const polls = stub.calls['GET /v2/cobr'] ?? 0;
    await app.boss.send(QUEUES.recurringPoll, {});
    await waitUntil(async () => (stub.calls['GET /v2/cobr'] ?? 0) > polls, 15_000, 'the poll');
    const approvals = async () =>
      (
        await sql<{ n: number }>(
          `select count(*)::int as n from events where type = 'mandate.approved' and data->>'id' = ?`,
          [md.id],
        )
      )[0].n;
    t.is(await approvals(), 1);

    const dueDate = plusDays(today(), 3);
    const res = await m.http.post(`/v1/mandates/${md.id}/charges`, { dueDate, amount: 9990 });
    t.is(res.status, 201);
    const rc = res.body.recurringCharge;
    t.is(rc.status, 'CREATED');
    await waitUntil(async () => stub.state.cobrs.has(rc.txid), 15_000, 'the cobr at the PSP');
    t.like(stub.state.cobrs.get(rc.txid), {
      idRec: md.recId,
      valor: { original: '99.90' },
      calendario: { dataDeVencimento: dueDate },
    });
    await stub.activateCobR(rc.txid);
    await waitCharge(m.http, rc.id, (c) => c.status === 'ACTIVE', 'ACTIVE');

    const { pix } = await stub.settleTentativa(rc.txid, 'PAGA');
    await waitCharge(m.http, rc.id, (c) => c.status === 'PAID', 'PAID');
    const paid = await chargeOf(m.http, rc.id);
    t.like(paid, { paidAmount: 9990, attempts: [{ kind: 'DUE_DATE', status: 'PAID', endToEndId: pix!.endToEndId }] });
    const balance = await m.http.get('/v1/merchants/me/balance');
    t.is(balance.body.available, 9990 - paid.fee);
    const report = await verifyLedger(app.orm.em.fork());
    t.true(report.ok, JSON.stringify(report.problems));
  },
);

test.serial('a rejected attempt, a retry the merchant asks for, the retry paid', async (t) => {
  const m = await company();
  const { md, rc, dueDate } = await activeCharge(m.http, { retryPolicy: 'THREE_IN_SEVEN_DAYS' });
  t.true(md.recId.startsWith('RR'));
  await stub.settleTentativa(rc.txid, 'REJEITADA', { codigo: 'AC06' });
  await waitCharge(m.http, rc.id, (c) => c.attempts[0]?.status === 'REJECTED', 'attempt REJECTED');
  t.like(await chargeOf(m.http, rc.id), { status: 'ACTIVE', attempts: [{ status: 'REJECTED', failureCode: 'AC06' }] });

  const date = plusDays(dueDate, 1);
  const retry = await m.http.post(`/v1/recurring-charges/${rc.id}/retries`, { date });
  t.is(retry.status, 202);
  await waitUntil(async () => stub.state.cobrs.get(rc.txid)!.tentativas.length === 2, 15_000, 'the retentativa');
  t.like(stub.state.cobrs.get(rc.txid)!.tentativas[1], { dataLiquidacao: date, status: 'SOLICITADA' });
  await stub.settleTentativa(rc.txid, 'PAGA');
  await waitCharge(m.http, rc.id, (c) => c.status === 'PAID', 'PAID');
  t.like(await chargeOf(m.http, rc.id), {
    attempts: [{ status: 'REJECTED' }, { kind: 'RETRY', date, status: 'PAID' }],
  });
});

test.serial('without retries a rejected attempt fails the charge, as the PSP ends the cobr', async (t) => {
  const m = await company();
  const { rc } = await activeCharge(m.http);
  await stub.settleTentativa(rc.txid, 'REJEITADA', { codigo: 'AC06' });
  await waitCharge(m.http, rc.id, (c) => c.status === 'FAILED', 'FAILED');
  t.is(stub.state.cobrs.get(rc.txid)!.status, 'REJEITADA');
});

test.serial('callbacks that never came: the poll finds the approval, the activation and the rejection', async (t) => {
  const m = await company();
  const md = await mandate(m.http, { retryPolicy: 'THREE_IN_SEVEN_DAYS' });
  t.is(await stub.approveRec(md.recId, { notify: false }), null);
  await app.boss.send(QUEUES.recurringPoll, {});
  await waitMandate(m.http, md.id, 'APPROVED');

  const dueDate = plusDays(today(), 4);
  const rc = (await m.http.post(`/v1/mandates/${md.id}/charges`, { dueDate, amount: 9990 })).body.recurringCharge;
  await waitUntil(async () => stub.state.cobrs.has(rc.txid), 15_000, 'the cobr at the PSP');
  await stub.activateCobR(rc.txid, { notify: false });
  await stub.settleTentativa(rc.txid, 'REJEITADA', { codigo: 'AC06', notify: false });
  t.is((await chargeOf(m.http, rc.id)).status, 'CREATED');
  await app.boss.send(QUEUES.recurringPoll, {});
  await waitCharge(m.http, rc.id, (c) => c.attempts[0]?.status === 'REJECTED', 'found by the poll');
  t.like(await chargeOf(m.http, rc.id), { status: 'ACTIVE', attempts: [{ status: 'REJECTED', failureCode: 'AC06' }] });
});

test.serial(
  'the payer cancels at the PSP: CANCELED by PAYER; a rejected solicitação; callbacks are authenticated',
  async (t) => {
    const m = await company();
    const { md, rc } = await activeCharge(m.http);
    await stub.payerCancelRec(md.recId, { reason: 'Não reconheço' });
    await waitMandate(m.http, md.id, 'CANCELED');
    const mandateView = (await m.http.get(`/v1/mandates/${md.id}`)).body.mandate;
    t.deepEqual(mandateView.cancellation, { by: 'PAYER', reason: 'Não reconheço' });
    t.is((await chargeOf(m.http, rc.id)).status, 'CANCELED');

    const push = await mandate(m.http, {
      journey: 'PUSH',
      payerAccount: { ispb: '91193552', branch: '2569', account: '550689', document: '52998224725' },
    });
    await waitUntil(async () => (stub.state.recs.get(push.recId)?.solicitacao?.length ?? 0) === 1, 15_000, 'solicrec');
    await stub.rejectSolicRec(push.recId);
    await waitUntil(
      async () => (await m.http.get(`/v1/mandates/${push.id}`)).body.mandate.request?.status === 'REJECTED',
      15_000,
      'request REJECTED',
    );
    t.is(await mandateStatus(m.http, push.id), 'CREATED');
    // asked again; before the new solicitação reaches the PSP, the old rejection comes back (a repeat, or the poll):
    // it is the old request's outcome, not the new one's
    stub.failNext(1000, { status: 503 }, { route: 'POST /v2/solicrec' });
    t.is((await m.http.post(`/v1/mandates/${push.id}/request`)).status, 202);
    await waitUntil(async () => (stub.calls['POST /v2/solicrec'] ?? 0) >= 2, 15_000, 'the new solicitação tried');
    t.is(await stub.resendRec(push.recId), 200);
    const done = async () =>
      (
        await sql(`select 1 from pgboss.job where name = ? and data->>'recId' = ? and state = 'completed'`, [
          QUEUES.recurringCallback,
          push.recId,
        ])
      ).length >= 2;
    await waitUntil(done, 15_000, 'the repeated callback applied');
    t.is((await m.http.get(`/v1/mandates/${push.id}`)).body.mandate.request?.status, 'SENT');
    stub.clearFailures();
    await waitUntil(async () => stub.state.recs.get(push.recId)!.solicitacao!.length === 2, 30_000, 'sent at last');

    const post = (path: string, body: unknown) =>
      fetch(`${app.baseUrl}/v1/acquirer/apipix/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    t.is((await post(`${'x'.repeat(40)}/rec`, { recs: [{ idRec: md.recId }] })).status, 401);
    t.is((await post(`${TOKEN}/rec`, { recs: [{ idRec: 'nope' }] })).status, 400);
    t.is((await post(`${TOKEN}/cobr`, { cobsr: [] })).status, 400);
    const ok = await post(`${TOKEN}/cobr`, { cobsr: [{ txid: rc.txid }, { txid: rc.txid }] });
    t.is(ok.status, 200);
    t.deepEqual(await ok.json(), { received: 1 });
  },
);

test.serial('QR_WITH_PAYMENT: the composed QR (the cob and the rec), approved and paid at once', async (t) => {
  const m = await company();
  const md = (await mandate(m.http, { journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 1500 } })) as Awaited<
    ReturnType<typeof mandate>
  > & { chargeId: string };
  const charge = (await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge;
  const rec = stub.state.recs.get(md.recId)!;
  t.is(rec.ativacao?.dadosJornada?.txid, charge.txid);
  const cob = stub.state.cobs.get(charge.txid)!;
  t.true(md.qrCode.includes(cob.location!) && md.qrCode.includes(rec.loc!.location), 'both locations in the QR');
  await stub.approveRec(md.recId);
  await stub.pay(charge.txid);
  await waitMandate(m.http, md.id, 'APPROVED');
  await waitUntil(
    async () => (await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge.status === 'PAID',
    15_000,
    'first payment PAID',
  );
  t.pass();
});

test.serial('acquirer:webhook registers the Pix, rec and cobr webhooks at the one URL', async (t) => {
  stub.state.webhooks.clear();
  delete stub.state.recWebhooks.rec;
  delete stub.state.recWebhooks.cobr;
  const command = acquirerCommands.find((c) => c.name === 'acquirer:webhook')!;
  const config = { ...app.config, publicBaseUrl: app.baseUrl }; // a loopback http URL is accepted outside production
  t.like(await command.run({ config } as never, {}), { chave: stub.pixKey, registered: true });
  const url = `${app.baseUrl}/v1/acquirer/apipix/${TOKEN}`;
  t.is(stub.state.webhooks.get(stub.pixKey)?.webhookUrl, url);
  t.deepEqual({ ...stub.state.recWebhooks }, { rec: url, cobr: url });
});

test.serial('a PSP that does not answer the rec: 503, no mandate stored', async (t) => {
  const m = await company();
  stub.failNext(1, { status: 503 }, { route: 'POST /v2/rec' });
  const res = await m.http.post('/v1/mandates', {
    journey: 'QR',
    customer: { name: 'Maria Souza', document: '52998224725' },
    contract: 'CT-2026-0002',
    object: 'Plano',
    frequency: 'WEEKLY',
    startDate: plusDays(today(), 3),
    amount: 1000,
  });
  t.is(res.status, 503);
  t.is((await m.http.get('/v1/mandates')).body.total, 0);
});

test.serial('the poll applies only what is new: run twice, the second finds nothing to do', async (t) => {
  const m = await company();
  const recIds = [];
  for (let i = 0; i < 3; i++) recIds.push((await mandate(m.http)).recId);
  for (const recId of recIds) await stub.approveRec(recId, { notify: false });
  const window = () => [new Date(Date.now() - 3600_000), new Date(Date.now() + 1000)] as const;
  const first = await pollRecurring(app.deps, ...window());
  // (the worker's own scheduled poll may take some of them first)
  t.true((first['mandates.applied'] ?? 0) <= 3);
  t.true((first['mandates.current'] ?? 0) > 0, 'what earlier tests applied is current');
  for (const recId of recIds)
    t.is(
      (await sql<{ status: string }>('select status from mandates where rec_id = ?', [recId]))[0].status,
      'APPROVED',
    );
  const again = await pollRecurring(app.deps, ...window());
  t.is(again['mandates.applied'] ?? 0, 0);
  t.is(again['recurringCharges.applied'] ?? 0, 0);
  const approvals = await sql<{ n: number }>(
    `select count(*)::int as n from events where type = 'mandate.approved' and merchant_id = ?`,
    [m.merchantId],
  );
  t.is(approvals[0].n, 3);
});
