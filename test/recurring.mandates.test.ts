import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createApiKeyFor, createMerchant, type MerchantOptions } from './support/factories.ts';
import { decodeQrDataUrl } from './support/qr.ts';
import { waitUntil } from './support/receiver.ts';
import { parseBrCode } from '../src/pix/brcode.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { setRequestStatus, mandateIdByRecId } from '../src/recurring/mandates.states.ts';

// The clock every rule reads (São Paulo "today"); tests that need another day move it.
const now = new Date();
let app: TestApp;
let stopWorker: () => Promise<void>;
test.before(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: 'https://pix.example.com.br' }, { clock: () => now });
  stopWorker = await startBackground(app, 'worker');
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

const today = () => saoPauloDate(now);
const sql = <T = any>(q: string, params: unknown[] = []) => app.orm.em.fork().execute<T[]>(q, params);

// A valid CNPJ (check digits computed), so every merchant can have its own.
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

// A merchant with a CNPJ (registered, then its document changed operator-side), onboarded unless told otherwise.
async function company(opts: MerchantOptions = { kyc: 'APPROVED', acquirer: true, pixKey: true }) {
  const m = await createMerchant(app, opts);
  await sql('update merchants set document = ? where id = ?', [cnpj(), m.merchantId]);
  return m;
}

const payer = { name: 'Maria Souza', document: '529.982.247-25' };
const base = (over: Record<string, unknown> = {}) => ({
  journey: 'QR',
  customer: payer,
  contract: 'CT-2026-0001',
  object: 'Plano mensal Academia',
  frequency: 'MONTHLY',
  startDate: plusDays(today(), 5),
  amount: 9990,
  ...over,
});
const pushAccount = { ispb: '12345678', branch: '0001', account: '123456', document: '52998224725' };

const eventsOf = (merchantId: string, type: string) =>
  sql<{ type: string; data: any }>(`select type, data from events where merchant_id = ? and type = ? order by id`, [
    merchantId,
    type,
  ]);

test('POST /v1/mandates (QR): 201 CREATED with every field, a recId of the contract, a BR Code with field 80 and its PNG', async (t) => {
  const m = await company();
  const res = await m.http.post('/v1/mandates', base({ retryPolicy: 'THREE_IN_SEVEN_DAYS' }));
  t.is(res.status, 201);
  const md = res.body.mandate;
  t.like(md, {
    journey: 'QR',
    status: 'CREATED',
    customer: { name: 'Maria Souza', document: '52998224725' },
    contract: 'CT-2026-0001',
    object: 'Plano mensal Academia',
    frequency: 'MONTHLY',
    startDate: plusDays(today(), 5),
    endDate: null,
    amount: 9990,
    minAmount: null,
    payerMaxAmount: null,
    retryPolicy: 'THREE_IN_SEVEN_DAYS',
    paymentUrl: null,
    chargeId: null,
    autoCharge: null,
    request: null,
    cancellation: null,
  });
  t.regex(md.recId, /^RR[0-9]{8}[0-9]{8}[A-Za-z0-9]{11}$/);
  t.is(md.recId.slice(10, 18), today().replaceAll('-', ''));
  t.is(Date.parse(md.expiresAt) - Date.parse(md.createdAt), 86_400_000);
  t.deepEqual(md.history, [{ status: 'CREATED', at: md.createdAt }]);
  const brcode = parseBrCode(md.qrCode);
  t.true(brcode.crcValid);
  t.regex(
    md.qrCode,
    new RegExp(`80\\d\\d0014br\\.gov\\.bcb\\.pix25\\d\\dpix\\.example\\.com\\.br/pix/rec/${md.recId}`),
  );
  t.is(decodeQrDataUrl(md.imageBase64), md.qrCode);
  // RN without retries; defaults
  const rn = (await m.http.post('/v1/mandates', base())).body.mandate;
  t.regex(rn.recId, /^RN/);
  t.is(rn.retryPolicy, 'NONE');
  // read back
  t.deepEqual((await m.http.get(`/v1/mandates/${md.id}`)).body, { mandate: md });
  t.is(await mandateIdByRecId(app.orm.em.fork(), md.recId), md.id);
});

test('the recurrence location /pix/rec/:recId serves the mandate as an API Pix rec (public); PUSH has none', async (t) => {
  const m = await company();
  const md = (
    await m.http.post('/v1/mandates', base({ minAmount: 500, amount: null, endDate: plusDays(today(), 400) }))
  ).body.mandate;
  const loc = await client(app.baseUrl).get(`/pix/rec/${md.recId}`);
  t.is(loc.status, 200);
  t.like(loc.body, {
    idRec: md.recId,
    status: 'CRIADA',
    vinculo: { objeto: 'Plano mensal Academia', contrato: 'CT-2026-0001', devedor: { cpf: '52998224725' } },
    calendario: { dataInicial: md.startDate, dataFinal: md.endDate, periodicidade: 'MENSAL' },
    valor: { valorMinimoRecebedor: '5.00' },
    politicaRetentativa: 'NAO_PERMITE',
  });
  t.is((await client(app.baseUrl).get('/pix/rec/RN0000000020260101AAAAAAAAAAA')).status, 404);
  const push = (await m.http.post('/v1/mandates', base({ journey: 'PUSH', payerAccount: pushAccount }))).body.mandate;
  t.is((await client(app.baseUrl).get(`/pix/rec/${push.recId}`)).status, 404);
});

test('only a CNPJ merchant with the charge prerequisites: 403 with the contract message, then each missing one', async (t) => {
  const person = await createMerchant(app, { kyc: 'APPROVED', acquirer: true, pixKey: true });
  t.deepEqual(
    [(await person.http.post('/v1/mandates', base())).status, (await person.http.post('/v1/mandates', base())).body],
    [403, { message: 'Pix Automático disponível apenas para recebedores com CNPJ' }],
  );
  const none = await company({});
  t.deepEqual((await none.http.post('/v1/mandates', base())).body, {
    message: 'KYC não aprovado; Conta recebedora não configurada; Nenhuma chave PIX ativa',
  });
  const noKey = await company({ kyc: 'APPROVED', acquirer: true });
  const r = await noKey.http.post('/v1/mandates', base());
  t.deepEqual([r.status, r.body], [403, { message: 'Nenhuma chave PIX ativa' }]);
  for (const x of [person, none, noKey])
    t.is(Number((await sql('select count(*) as n from mandates where merchant_id = ?', [x.merchantId]))[0].n), 0);
});

test('the sandbox payer approves a QR mandate: APPROVED, history, mandate.approved with the mandate', async (t) => {
  const m = await company();
  const md = (await m.http.post('/v1/mandates', base())).body.mandate;
  const res = await m.http.post(`/v1/sandbox/mandates/${md.id}/approve`);
  t.is(res.status, 200);
  t.is(res.body.mandate.status, 'APPROVED');
  t.deepEqual(
    res.body.mandate.history.map((h: { status: string }) => h.status),
    ['CREATED', 'APPROVED'],
  );
  const [event] = await eventsOf(m.merchantId, 'mandate.approved');
  t.deepEqual(event.data, res.body.mandate);
  // again: unchanged, no second event
  const again = await m.http.post(`/v1/sandbox/mandates/${md.id}/approve`);
  t.deepEqual([again.status, again.body], [200, res.body]);
  t.is((await eventsOf(m.merchantId, 'mandate.approved')).length, 1);
});

test('QR_WITH_PAYMENT: the first payment is an immediate charge of firstPayment.amount; approval pays it', async (t) => {
  const m = await company();
  const res = await m.http.post('/v1/mandates', base({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 4990 } }));
  t.is(res.status, 201);
  const md = res.body.mandate;
  t.truthy(md.chargeId);
  t.is(md.paymentUrl, `https://pix.example.com.br/pay/${md.chargeId}`);
  const charge = (await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge;
  t.like(charge, { type: 'IMMEDIATE', amount: 4990, status: 'PENDING', customer: { document: '52998224725' } });
  // the mandate's BR Code pays the charge (its txid's location) and carries the recurrence (field 80)
  t.true(md.qrCode.includes(`pix.example.com.br/pix/qr/${charge.txid}`));
  t.true(md.qrCode.includes(`pix.example.com.br/pix/rec/${md.recId}`));
  t.true(md.qrCode.includes('540549.90'));
  const ok = await m.http.post(`/v1/sandbox/mandates/${md.id}/approve`);
  t.is(ok.body.mandate.status, 'APPROVED');
  const paid = await waitUntil(async () => {
    const c = (await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge;
    return c.status === 'PAID' && c;
  });
  t.is(paid.paidAmount, 4990);
});

test('PUSH: the request is sent by the worker (request SENT); approval makes it ACCEPTED', async (t) => {
  const m = await company();
  const res = await m.http.post('/v1/mandates', base({ journey: 'PUSH', payerAccount: pushAccount }));
  t.is(res.status, 201);
  t.like(res.body.mandate, { qrCode: null, imageBase64: null, request: { status: 'SENT' } });
  const [job] = await sql(`select data from pgboss.job where name = 'mandate.request' and data->>'mandateId' = ?`, [
    res.body.mandate.id,
  ]);
  t.truthy(job);
  const ok = await m.http.post(`/v1/sandbox/mandates/${res.body.mandate.id}/approve`);
  t.like(ok.body.mandate, { status: 'APPROVED', request: { status: 'ACCEPTED' } });
  void setRequestStatus;
  void cpf;
  void createApiKeyFor;
});
