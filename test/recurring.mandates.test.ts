import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createApiKeyFor, createMerchant, type MerchantOptions } from './support/factories.ts';
import { decodeQrDataUrl } from './support/qr.ts';
import { waitUntil } from './support/receiver.ts';
import { parseBrCode } from '../src/pix/brcode.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { setRequestStatus, mandateIdByRecId } from '../src/recurring/mandates.states.ts';
import { AcquirerUnavailableError } from '../src/acquirer/errors.ts';
import { foldCounters } from '../src/platform/counters.ts';
import { MANDATE_PAGE } from '../src/recurring/mandates.sql.ts';
import { cnpj } from './support/recurring.ts';

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
    [403, { code: 'cnpj_required', message: 'Pix Automático disponível apenas para recebedores com CNPJ' }],
  );
  const none = await company({});
  t.deepEqual((await none.http.post('/v1/mandates', base())).body, {
    code: 'prerequisites_missing',
    message: 'KYC não aprovado; Conta recebedora não configurada; Nenhuma chave PIX ativa',
  });
  const noKey = await company({ kyc: 'APPROVED', acquirer: true });
  const r = await noKey.http.post('/v1/mandates', base());
  t.deepEqual([r.status, r.body], [403, { code: 'prerequisites_missing', message: 'Nenhuma chave PIX ativa' }]);
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
});

test('400 for bad input: both amounts, journey fields where they do not belong, dates, limits, autoCharge', async (t) => {
  const m = await company();
  const errors = async (body: Record<string, unknown>) => {
    const r = await m.http.post('/v1/mandates', body);
    t.is(r.status, 400, JSON.stringify(body));
    return Object.fromEntries((r.body.errors as { field: string; message: string }[]).map((e) => [e.field, e.message]));
  };
  t.like(await errors(base({ minAmount: 100 })), {
    amount: 'informe amount (valor fixo) ou minAmount (valor variável), não os dois',
  });
  t.like(await errors({}), {
    journey: 'journey deve ser um de: PUSH, QR, QR_WITH_PAYMENT, DUE_DATE_QR',
    customer: 'customer deve ser um objeto com name e document',
    contract: 'contract é obrigatório',
    object: 'object é obrigatório',
    frequency: 'frequency deve ser um de: WEEKLY, MONTHLY, QUARTERLY, SEMIANNUAL, ANNUAL',
    startDate: 'startDate deve ser uma data no formato AAAA-MM-DD',
  });
  t.like(await errors(base({ startDate: today() })), {
    startDate: 'startDate deve ser a partir de amanhã (America/Sao_Paulo)',
  });
  t.like(await errors(base({ endDate: plusDays(today(), 4) })), {
    endDate: 'endDate não pode ser anterior a startDate',
  });
  t.like(await errors(base({ contract: 'x'.repeat(36), object: 'y'.repeat(36) })), {
    contract: 'contract deve ter de 1 a 35 caracteres',
    object: 'object deve ter de 1 a 35 caracteres',
  });
  t.like(await errors(base({ amount: 0, expiresIn: 59, retryPolicy: 'ALWAYS' })), {
    amount: 'amount deve ser um inteiro em centavos, mínimo 1',
    expiresIn: 'expiresIn deve ser um inteiro entre 60 e 2592000 segundos',
    retryPolicy: 'retryPolicy deve ser um de: NONE, THREE_IN_SEVEN_DAYS',
  });
  t.like(await errors(base({ expiresIn: 2_592_001, customer: { name: 'X', document: '111.111.111-11' } })), {
    expiresIn: 'expiresIn deve ser um inteiro entre 60 e 2592000 segundos',
    'customer.document': 'customer.document deve ser um CPF ou CNPJ válido',
  });
  t.like(await errors(base({ journey: 'PUSH' })), {
    payerAccount: 'payerAccount é obrigatório na jornada PUSH: { ispb, branch, account, document }',
  });
  t.like(await errors(base({ journey: 'PUSH', payerAccount: { ...pushAccount, ispb: '1234567' } })), {
    'payerAccount.ispb': 'payerAccount.ispb deve ter 8 dígitos',
  });
  t.like(await errors(base({ payerAccount: pushAccount, firstPayment: { amount: 1 }, chargeId: cpf() })), {
    payerAccount: 'payerAccount só se aplica à jornada PUSH',
    firstPayment: 'firstPayment só se aplica à jornada QR_WITH_PAYMENT',
    chargeId: 'chargeId só se aplica à jornada DUE_DATE_QR',
  });
  t.like(await errors(base({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 0 } })), {
    firstPayment: 'firstPayment.amount é obrigatório na jornada QR_WITH_PAYMENT: um inteiro em centavos, mínimo 1',
  });
  t.like(await errors(base({ journey: 'DUE_DATE_QR', chargeId: 'abc' })), {
    chargeId: 'chargeId é obrigatório na jornada DUE_DATE_QR: o id de uma cobrança com vencimento',
  });
  t.like(await errors(base({ autoCharge: { leadDays: 1 } })), {
    'autoCharge.leadDays': 'autoCharge.leadDays deve ser um inteiro entre 2 e 10',
  });
  t.like(await errors(base({ autoCharge: { leadDays: 11, amount: 9991 } })), {
    'autoCharge.leadDays': 'autoCharge.leadDays deve ser um inteiro entre 2 e 10',
    'autoCharge.amount': 'autoCharge.amount deve ser igual a amount numa autorização de valor fixo (ou ausente)',
  });
  t.like(await errors(base({ amount: null, minAmount: 500, autoCharge: {} })), {
    'autoCharge.amount': 'autoCharge.amount é obrigatório numa autorização de valor variável',
  });
  t.is(Number((await sql('select count(*) as n from mandates where merchant_id = ?', [m.merchantId]))[0].n), 0);
});

test('autoCharge is stored: leadDays default 4, a fixed mandate its amount; a variable one its own', async (t) => {
  const m = await company();
  const fixed = (await m.http.post('/v1/mandates', base({ autoCharge: {} }))).body.mandate;
  t.deepEqual(fixed.autoCharge, { amount: 9990, leadDays: 4 });
  const variable = (
    await m.http.post('/v1/mandates', base({ amount: null, autoCharge: { amount: 1500, leadDays: 10 }, expiresIn: 60 }))
  ).body.mandate;
  t.deepEqual(variable.autoCharge, { amount: 1500, leadDays: 10 });
  t.like(variable, { amount: null, minAmount: null });
  t.is(Date.parse(variable.expiresAt) - Date.parse(variable.createdAt), 60_000);
  const [row] = await sql('select next_cycle, auto_charge_on from mandates where id = ?', [variable.id]);
  t.deepEqual(row, { next_cycle: 0, auto_charge_on: null });
});

test('x-idempotency-key: a repeat replays (200), another body 409; QR_WITH_PAYMENT reuses its charge', async (t) => {
  const m = await company();
  const key = { 'x-idempotency-key': `md-${Date.now()}` };
  const body = base({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 1000 } });
  const first = await m.http.post('/v1/mandates', body, key);
  t.is(first.status, 201);
  const again = await m.http.post('/v1/mandates', body, key);
  t.is(again.status, 200);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(again.body, first.body);
  // its id derives from the merchant and the key (the PSP's reference: a retry registers the same mandate there)
  t.regex(first.body.mandate.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const sameKeyElsewhere = await (await company()).http.post('/v1/mandates', body, key);
  t.is(sameKeyElsewhere.status, 201);
  t.not(sameKeyElsewhere.body.mandate.id, first.body.mandate.id);
  const other = await m.http.post('/v1/mandates', { ...body, contract: 'CT-2' }, key);
  t.deepEqual(
    [other.status, other.body],
    [409, { code: 'idempotency_conflict', message: 'Chave de idempotência já usada com outro corpo de requisição' }],
  );
  // concurrent repeats: one mandate, one charge
  const key2 = { 'x-idempotency-key': `md2-${Date.now()}` };
  const both = await Promise.all([1, 2, 3].map(() => m.http.post('/v1/mandates', body, key2)));
  t.deepEqual(both.map((r) => r.status).sort(), [200, 200, 201]);
  t.is(new Set(both.map((r) => r.body.mandate.id)).size, 1);
  const [n] = await sql(`select count(*) as n from charges where merchant_id = ?`, [m.merchantId]);
  t.is(Number(n.n), 2);
  // an API key works as well as a JWT
  const apiKey = await createApiKeyFor(app, m.token);
  t.is((await client(app.baseUrl, apiKey).post('/v1/mandates', base())).status, 201);
});

// A PENDING due-date charge of the merchant for `document`.
async function dueDateCharge(m: Awaited<ReturnType<typeof company>>, document: string) {
  const r = await m.http.post('/v1/charges', {
    amount: 15_000,
    description: 'Mensalidade',
    dueDate: plusDays(today(), 3),
    customer: { name: 'Maria Souza', document },
  });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return r.body.charge;
}

test('DUE_DATE_QR: a PENDING due-date charge of the same payer; otherwise 422; approval pays it', async (t) => {
  const m = await company();
  const charge = await dueDateCharge(m, payer.document);
  const unfit = {
    code: 'charge_unfit_for_mandate',
    message:
      'chargeId deve ser uma cobrança com vencimento PENDING deste recebedor, do mesmo pagador (customer.document) e sem outra autorização ativa',
  };
  // another payer's, an immediate charge, an unknown one, another merchant's
  const otherPayer = await dueDateCharge(m, cpf());
  const immediate = (await m.http.post('/v1/charges', { amount: 100, description: 'x', customer: payer })).body.charge;
  const other = await company();
  const othersCharge = await dueDateCharge(other, payer.document);
  for (const id of [otherPayer.id, immediate.id, '01a30000-1111-7a00-8b00-000000000001', othersCharge.id]) {
    const r = await m.http.post('/v1/mandates', base({ journey: 'DUE_DATE_QR', chargeId: id }));
    t.deepEqual([r.status, r.body], [422, unfit], id);
  }
  const res = await m.http.post('/v1/mandates', base({ journey: 'DUE_DATE_QR', chargeId: charge.id }));
  t.is(res.status, 201);
  t.like(res.body.mandate, { chargeId: charge.id, paymentUrl: `https://pix.example.com.br/pay/${charge.id}` });
  t.true(res.body.mandate.qrCode.includes(`/pix/qr/${charge.txid}`));
  // a live mandate already pays it
  t.deepEqual((await m.http.post('/v1/mandates', base({ journey: 'DUE_DATE_QR', chargeId: charge.id }))).body, unfit);
  t.is((await m.http.post(`/v1/sandbox/mandates/${res.body.mandate.id}/approve`)).status, 200);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${charge.id}`)).body.charge.status === 'PAID');
});

test('GET /v1/mandates: pages newest first, by status (counters) and by payer; another merchant sees none', async (t) => {
  const m = await company();
  const other = { name: 'João', document: cpf() };
  const a = (await m.http.post('/v1/mandates', base())).body.mandate;
  const b = (await m.http.post('/v1/mandates', base({ customer: other }))).body.mandate;
  const c = (await m.http.post('/v1/mandates', base())).body.mandate;
  await m.http.post(`/v1/sandbox/mandates/${b.id}/approve`);
  const all = (await m.http.get('/v1/mandates?limit=2')).body;
  t.like(all, { page: 1, limit: 2, total: 3 });
  t.deepEqual(
    all.mandates.map((x: { id: string }) => x.id),
    [c.id, b.id],
  );
  t.deepEqual((await m.http.get('/v1/mandates?page=2&limit=2')).body.mandates, [{ ...a, imageBase64: null }]); // no PNG in a listing
  const approved = (await m.http.get('/v1/mandates?status=APPROVED')).body;
  t.like(approved, { total: 1, page: 1, limit: 20 });
  t.is(approved.mandates[0].id, b.id);
  // the PNG only while the payer may still scan it
  t.is((await m.http.get(`/v1/mandates/${b.id}`)).body.mandate.imageBase64, null, 'APPROVED: nothing left to scan');
  t.regex((await m.http.get(`/v1/mandates/${c.id}`)).body.mandate.imageBase64, /^data:image\/png;base64,/);
  t.is((await m.http.get('/v1/mandates?status=CREATED')).body.total, 2);
  // the worker's fold of the counters' +1/-1 rows changes no total
  await foldCounters(app.orm.em.fork(), [MANDATE_PAGE.counter]);
  t.is((await m.http.get('/v1/mandates?status=CREATED')).body.total, 2);
  t.is((await m.http.get('/v1/mandates')).body.total, 3);
  const byPayer = (await m.http.get(`/v1/mandates?customerDocument=${payer.document}`)).body;
  t.like(byPayer, { total: 2 });
  t.deepEqual(
    byPayer.mandates.map((x: { id: string }) => x.id),
    [c.id, a.id],
  );
  t.is((await m.http.get(`/v1/mandates?customerDocument=${other.document}&status=CREATED`)).body.total, 0);
  t.like((await m.http.get(`/v1/mandates?customerDocument=${payer.document}&page=3&limit=1`)).body, {
    total: 2,
    mandates: [],
  });
  for (const q of ['status=NOPE', 'customerDocument=123', 'limit=0', 'page=0', 'status=CREATED&status=APPROVED'])
    t.is((await m.http.get(`/v1/mandates?${q}`)).status, 400, q);
  const stranger = await company();
  t.like((await stranger.http.get('/v1/mandates')).body, { total: 0, mandates: [] });
  t.deepEqual((await stranger.http.get(`/v1/mandates/${a.id}`)).body, {
    code: 'not_found',
    message: 'Autorização não encontrada',
  });
  t.is((await stranger.http.get('/v1/mandates/not-a-uuid')).status, 404);
  t.is((await stranger.http.patch(`/v1/mandates/${a.id}`, { status: 'CANCELED' })).status, 404);
  t.is((await stranger.http.post(`/v1/sandbox/mandates/${a.id}/approve`)).status, 404);
  t.is((await stranger.http.post(`/v1/sandbox/mandates/${a.id}/reject`)).status, 404);
  t.is((await stranger.http.post(`/v1/sandbox/mandates/${a.id}/payer-cancel`)).status, 404);
  t.is((await stranger.http.post(`/v1/mandates/${a.id}/request`)).status, 404);
});

test('PATCH: only the cancellation (422 otherwise), by MERCHANT with its reason, mandate.canceled; a terminal one 422', async (t) => {
  const m = await company();
  const md = (await m.http.post('/v1/mandates', base())).body.mandate;
  const only = { code: 'mandate_only_cancel', message: 'Somente o cancelamento é permitido nesta autorização' };
  for (const body of [{ status: 'APPROVED' }, {}, { amount: 1 }, { status: 'CANCELED', amount: 5 }]) {
    const r = await m.http.patch(`/v1/mandates/${md.id}`, body);
    t.deepEqual([r.status, r.body], [422, only], JSON.stringify(body));
  }
  t.is((await m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED', reason: 5 })).status, 400);
  const res = await m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED', reason: 'Cliente desistiu' });
  t.is(res.status, 200);
  t.like(res.body.mandate, { status: 'CANCELED', cancellation: { by: 'MERCHANT', reason: 'Cliente desistiu' } });
  t.deepEqual(
    res.body.mandate.history.map((h: { status: string }) => h.status),
    ['CREATED', 'CANCELED'],
  );
  const [event] = await eventsOf(m.merchantId, 'mandate.canceled');
  t.deepEqual(event.data, res.body.mandate);
  const listed = (await m.http.get('/v1/events?type=mandate.canceled')).body;
  t.is(listed.events[0].data.id, md.id);
  const again = await m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED' });
  t.deepEqual(
    [again.status, again.body],
    [422, { code: 'mandate_not_cancelable', message: 'Autorização CANCELED: não pode mais ser cancelada' }],
  );
  // sent to the PSP by the worker
  const [job] = await sql(`select state from pgboss.job where name = 'mandate.cancel' and data->>'recId' = ?`, [
    md.recId,
  ]);
  t.truthy(job);
  // without a reason
  const md2 = (await m.http.post('/v1/mandates', base())).body.mandate;
  const r2 = await m.http.patch(`/v1/mandates/${md2.id}`, { status: 'CANCELED' });
  t.deepEqual(r2.body.mandate.cancellation, { by: 'MERCHANT', reason: null });
  // a PUSH mandate's request still SENT is cancelled with it
  const push = (await m.http.post('/v1/mandates', base({ journey: 'PUSH', payerAccount: pushAccount }))).body.mandate;
  t.like((await m.http.patch(`/v1/mandates/${push.id}`, { status: 'CANCELED' })).body.mandate, {
    status: 'CANCELED',
    request: { status: 'CANCELED' },
  });
  // a rejected one is terminal
  const md3 = (await m.http.post('/v1/mandates', base())).body.mandate;
  await m.http.post(`/v1/sandbox/mandates/${md3.id}/reject`);
  t.deepEqual((await m.http.patch(`/v1/mandates/${md3.id}`, { status: 'CANCELED' })).body, {
    code: 'mandate_not_cancelable',
    message: 'Autorização REJECTED: não pode mais ser cancelada',
  });
});

// A recurring charge of the mandate as the charges branch makes it: its hidden charges row (type RECURRING, PENDING)
// and the recurring_charges row with its due date's attempt SCHEDULED (PAID: both paid).
async function recurringCharge(mandateId: string, merchantId: string, cycle: number, dueDate: string, status: string) {
  const [chargeId, id] = [randomUUID(), randomUUID()];
  const txid = `rc${randomUUID().replaceAll('-', '')}`;
  const paid = status === 'PAID';
  await sql(
    `insert into charges (id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in,
       expires_at, location, qr_code, type)
     values (?, now(), now(), ?, ?, 9990, 99, 'Mensalidade', ?, 86400, now() + interval '20 days', '', '', 'RECURRING')`,
    [chargeId, merchantId, txid, paid ? 'PAID' : 'PENDING'],
  );
  const attempt = {
    date: dueDate,
    kind: 'DUE_DATE',
    status: paid ? 'PAID' : 'SCHEDULED',
    failureCode: null,
    endToEndId: null,
    at: new Date().toISOString(),
  };
  await sql(
    `insert into recurring_charges (id, created_at, updated_at, merchant_id, mandate_id, charge_id, txid, cycle, due_date,
       amount, description, status, attempts, retries_left)
     values (?, now(), now(), ?, ?, ?, ?, ?, ?, 9990, 'Mensalidade', ?, ?::jsonb, 0)`,
    [id, merchantId, mandateId, chargeId, txid, cycle, dueDate, status, JSON.stringify([attempt])],
  );
  return { id, chargeId, txid };
}

const stateOf = async (rc: { id: string; chargeId: string }) => {
  const [r] = await sql(
    'select r.status, r.attempts, c.status as charge_status from recurring_charges r join charges c on c.id = r.charge_id where r.id = ?',
    [rc.id],
  );
  return { status: r.status, charge: r.charge_status, attempt: r.attempts[0].status };
};

// An APPROVED mandate with charges due today (stays), after today (ACTIVE and CREATED: cancelled) and one PAID.
async function approvedWithCharges(m: Awaited<ReturnType<typeof company>>) {
  const md = (await m.http.post('/v1/mandates', base({ frequency: 'WEEKLY', startDate: plusDays(today(), 1) }))).body
    .mandate;
  await m.http.post(`/v1/sandbox/mandates/${md.id}/approve`);
  const rc = {
    dueToday: await recurringCharge(md.id, m.merchantId, 0, today(), 'ACTIVE'),
    active: await recurringCharge(md.id, m.merchantId, 1, plusDays(today(), 3), 'ACTIVE'),
    created: await recurringCharge(md.id, m.merchantId, 2, plusDays(today(), 10), 'CREATED'),
    paid: await recurringCharge(md.id, m.merchantId, 3, plusDays(today(), 2), 'PAID'),
  };
  return { md, rc };
}

async function assertCascade(
  t: any,
  m: Awaited<ReturnType<typeof company>>,
  rc: Awaited<ReturnType<typeof approvedWithCharges>>['rc'],
) {
  t.deepEqual(await stateOf(rc.dueToday), { status: 'ACTIVE', charge: 'PENDING', attempt: 'SCHEDULED' });
  t.deepEqual(await stateOf(rc.active), { status: 'CANCELED', charge: 'CANCELED', attempt: 'CANCELED' });
  t.deepEqual(await stateOf(rc.created), { status: 'CANCELED', charge: 'CANCELED', attempt: 'CANCELED' });
  t.deepEqual(await stateOf(rc.paid), { status: 'PAID', charge: 'PAID', attempt: 'PAID' });
  // one recurring_charge.canceled each, as the events API shows them (checked against the RecurringCharge schema)
  const events = (await m.http.get('/v1/events?type=recurring_charge.canceled')).body.events;
  t.deepEqual(events.map((e: any) => e.data.id).sort(), [rc.active.id, rc.created.id].sort());
  for (const e of events)
    t.like(e.data, { status: 'CANCELED', refundedAmount: 0, paidAt: null, attempts: [{ status: 'CANCELED' }] });
}

test('cancelling an APPROVED mandate cancels its CREATED/ACTIVE recurring charges due after today, in one transaction', async (t) => {
  const m = await company();
  const { md, rc } = await approvedWithCharges(m);
  const res = await m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED' });
  t.is(res.status, 200);
  await assertCascade(t, m, rc);
});

test('the cascade through the API: a recurring charge created by POST /v1/mandates/:id/charges is CANCELED with its mandate', async (t) => {
  const m = await company();
  const md = (await m.http.post('/v1/mandates', base({ startDate: plusDays(today(), 3) }))).body.mandate;
  await m.http.post(`/v1/sandbox/mandates/${md.id}/approve`);
  const created = await m.http.post(`/v1/mandates/${md.id}/charges`, { dueDate: plusDays(today(), 3), amount: 9990 });
  t.is(created.status, 201);
  const rc = created.body.recurringCharge;
  t.is(rc.status, 'ACTIVE');
  t.is((await m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED' })).status, 200);
  const after = (await m.http.get(`/v1/recurring-charges/${rc.id}`)).body.recurringCharge;
  t.like(after, { status: 'CANCELED', attempts: [{ kind: 'DUE_DATE', status: 'CANCELED' }] });
  const [event] = (await m.http.get('/v1/events?type=recurring_charge.canceled')).body.events;
  t.deepEqual(event.data, after);
  // a cancelled mandate takes no new charge
  t.is(
    (await m.http.post(`/v1/mandates/${md.id}/charges`, { dueDate: plusDays(today(), 4), amount: 9990 })).status,
    422,
  );
});

test('payer-cancel: CANCELED by PAYER with its reason, cascading like the merchant; no PSP cancellation job', async (t) => {
  const m = await company();
  const { md, rc } = await approvedWithCharges(m);
  const res = await m.http.post(`/v1/sandbox/mandates/${md.id}/payer-cancel`, { reason: 'Não quero mais' });
  t.is(res.status, 200);
  t.like(res.body.mandate, { status: 'CANCELED', cancellation: { by: 'PAYER', reason: 'Não quero mais' } });
  await assertCascade(t, m, rc);
  t.is((await eventsOf(m.merchantId, 'mandate.canceled')).length, 1);
  const jobs = await sql(`select 1 from pgboss.job where name = 'mandate.cancel' and data->>'recId' = ?`, [md.recId]);
  t.is(jobs.length, 0);
  const again = await m.http.post(`/v1/sandbox/mandates/${md.id}/payer-cancel`);
  t.deepEqual(
    [again.status, again.body],
    [422, { code: 'mandate_not_cancelable', message: 'Autorização CANCELED: não pode mais ser cancelada' }],
  );
  t.is((await m.http.post(`/v1/sandbox/mandates/${md.id}/payer-cancel`, { reason: '' })).status, 400);
});

test('approve: payerMaxAmount >= minAmount (422 below), ignored on a fixed mandate; not after expiresAt; not once terminal', async (t) => {
  const m = await company();
  const variable = (await m.http.post('/v1/mandates', base({ amount: null, minAmount: 1000 }))).body.mandate;
  const low = await m.http.post(`/v1/sandbox/mandates/${variable.id}/approve`, { payerMaxAmount: 999 });
  t.deepEqual(
    [low.status, low.body],
    [422, { code: 'payer_max_amount_too_low', message: 'payerMaxAmount deve ser maior ou igual a minAmount (1000)' }],
  );
  t.is((await m.http.post(`/v1/sandbox/mandates/${variable.id}/approve`, { payerMaxAmount: 0 })).status, 400);
  const ok = await m.http.post(`/v1/sandbox/mandates/${variable.id}/approve`, { payerMaxAmount: 1000 });
  t.like(ok.body.mandate, { status: 'APPROVED', payerMaxAmount: 1000 });
  const fixed = (await m.http.post('/v1/mandates', base())).body.mandate;
  const f = await m.http.post(`/v1/sandbox/mandates/${fixed.id}/approve`, { payerMaxAmount: 50 });
  t.like(f.body.mandate, { status: 'APPROVED', payerMaxAmount: null });
  const late = (await m.http.post('/v1/mandates', base({ expiresIn: 60 }))).body.mandate;
  await sql(`update mandates set expires_at = ? where id = ?`, [new Date(now.getTime() - 1000), late.id]); // the app's clock
  const l = await m.http.post(`/v1/sandbox/mandates/${late.id}/approve`);
  t.is(l.status, 422);
  t.regex(l.body.message, /^Autorização expirou em .*: o pagador não pode mais aprová-la$/);
  const rejected = (await m.http.post('/v1/mandates', base())).body.mandate;
  await m.http.post(`/v1/sandbox/mandates/${rejected.id}/reject`);
  t.deepEqual((await m.http.post(`/v1/sandbox/mandates/${rejected.id}/approve`)).body, {
    code: 'mandate_not_approvable',
    message: 'Autorização REJECTED: não pode mais ser aprovada',
  });
  t.deepEqual((await m.http.post(`/v1/sandbox/mandates/${fixed.id}/reject`)).body, {
    code: 'mandate_not_rejectable',
    message: 'Autorização APPROVED: não pode mais ser rejeitada',
  });
});

test('reject: QR_WITH_PAYMENT paid but rejected keeps the charge PAID and the mandate REJECTED; PUSH request REJECTED', async (t) => {
  const m = await company();
  const md = (await m.http.post('/v1/mandates', base({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 2500 } })))
    .body.mandate;
  t.is((await m.http.post(`/v1/sandbox/charges/${md.chargeId}/pay`)).status, 202);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge.status === 'PAID');
  const r = await m.http.post(`/v1/sandbox/mandates/${md.id}/reject`);
  t.is(r.status, 200);
  t.like(r.body.mandate, { status: 'REJECTED', cancellation: null });
  t.is((await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge.status, 'PAID');
  const [event] = await eventsOf(m.merchantId, 'mandate.rejected');
  t.deepEqual(event.data, r.body.mandate);
  // repeat: unchanged, one event
  t.deepEqual((await m.http.post(`/v1/sandbox/mandates/${md.id}/reject`)).body, r.body);
  t.is((await eventsOf(m.merchantId, 'mandate.rejected')).length, 1);
  const push = (await m.http.post('/v1/mandates', base({ journey: 'PUSH', payerAccount: pushAccount }))).body.mandate;
  t.like((await m.http.post(`/v1/sandbox/mandates/${push.id}/reject`)).body.mandate, {
    status: 'REJECTED',
    request: { status: 'REJECTED' },
  });
});

test('POST /v1/mandates/:id/request: 409 while SENT; after EXPIRED a new request (SENT, a new job); 422 otherwise', async (t) => {
  const m = await company();
  const md = (await m.http.post('/v1/mandates', base({ journey: 'PUSH', payerAccount: pushAccount }))).body.mandate;
  // the worker sends it (the sandbox PSP takes it at once)
  await waitUntil(async () => {
    const [job] = await sql(`select state from pgboss.job where name = 'mandate.request' and data->>'mandateId' = ?`, [
      md.id,
    ]);
    return job?.state === 'completed';
  });
  const busy = await m.http.post(`/v1/mandates/${md.id}/request`);
  t.deepEqual(
    [busy.status, busy.body],
    [409, { code: 'mandate_request_pending', message: 'Já há uma solicitação enviada ao pagador aguardando resposta' }],
  );
  const view = await setRequestStatus(app.deps, app.orm.em.fork(), { mandateId: md.id, status: 'EXPIRED' });
  t.deepEqual(view.request, { status: 'EXPIRED' });
  const [before] = await sql('select request_id from mandates where id = ?', [md.id]);
  const again = await m.http.post(`/v1/mandates/${md.id}/request`);
  t.is(again.status, 202);
  t.like(again.body.mandate, { status: 'CREATED', request: { status: 'SENT' } });
  const [after] = await sql('select request_id from mandates where id = ?', [md.id]);
  t.not(after.request_id, before.request_id);
  t.regex(after.request_id, /^SC[0-9]{16}[A-Za-z0-9]{11}$/);
  const jobs = await sql(`select data from pgboss.job where name = 'mandate.request' and data->>'mandateId' = ?`, [
    md.id,
  ]);
  t.is(jobs.length, 2);
  // REJECTED by the payer's PSP while the mandate is still CREATED: a new one too; concurrent ones: one wins
  await setRequestStatus(app.deps, app.orm.em.fork(), { mandateId: md.id, status: 'REJECTED' });
  const both = await Promise.all([1, 2].map(() => m.http.post(`/v1/mandates/${md.id}/request`)));
  t.deepEqual(both.map((r) => r.status).sort(), [202, 409]);
  // not PUSH; approved; accepted
  const qr = (await m.http.post('/v1/mandates', base())).body.mandate;
  t.deepEqual((await m.http.post(`/v1/mandates/${qr.id}/request`)).body, {
    code: 'mandate_not_push',
    message: 'Somente autorizações da jornada PUSH têm solicitação ao pagador',
  });
  await m.http.post(`/v1/sandbox/mandates/${md.id}/approve`);
  t.deepEqual((await m.http.post(`/v1/mandates/${md.id}/request`)).body, {
    code: 'mandate_not_requestable',
    message: 'Autorização APPROVED: não aceita nova solicitação',
  });
});

test('two cancels at once: one 200, one 422, one event, one CANCELED in the history', async (t) => {
  const m = await company();
  for (let i = 0; i < 5; i++) {
    const { md } = await approvedWithCharges(m);
    const rs = await Promise.all([
      m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED' }),
      m.http.post(`/v1/sandbox/mandates/${md.id}/payer-cancel`),
    ]);
    t.deepEqual(rs.map((r) => r.status).sort(), [200, 422]);
    const [row] = await sql('select history from mandates where id = ?', [md.id]);
    t.deepEqual(
      row.history.map((h: { status: string }) => h.status),
      ['CREATED', 'APPROVED', 'CANCELED'],
    );
    const events = await sql(`select 1 from events where type = 'mandate.canceled' and resource_id = ?`, [md.id]);
    t.is(events.length, 1);
    const canceled = await sql(
      `select 1 from events where type = 'recurring_charge.canceled' and data->>'mandateId' = ?`,
      [md.id],
    );
    t.is(canceled.length, 2);
  }
});

test('approve racing cancel: one outcome, never 5xx; the first payment is paid only when the approval happened', async (t) => {
  const m = await company();
  for (let i = 0; i < 6; i++) {
    const md = (await m.http.post('/v1/mandates', base({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 700 } })))
      .body.mandate;
    const [approve, cancel] = await Promise.all([
      m.http.post(`/v1/sandbox/mandates/${md.id}/approve`),
      m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED' }),
    ]);
    t.is(cancel.status, 200); // cancelling works from CREATED and from APPROVED
    t.true([200, 422].includes(approve.status));
    const [row] = await sql('select status, history from mandates where id = ?', [md.id]);
    t.is(row.status, 'CANCELED');
    const won = approve.status === 200;
    t.deepEqual(
      row.history.map((h: { status: string }) => h.status),
      won ? ['CREATED', 'APPROVED', 'CANCELED'] : ['CREATED', 'CANCELED'],
    );
    t.is(
      (await sql(`select 1 from events where type = 'mandate.approved' and resource_id = ?`, [md.id])).length,
      won ? 1 : 0,
    );
    if (won)
      await waitUntil(async () => (await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge.status === 'PAID');
    else t.is((await m.http.get(`/v1/charges/${md.chargeId}`)).body.charge.status, 'PENDING');
  }
  // two approvals at once: one approval, one event, the first payment paid once (nothing unmatched)
  const twice = (await m.http.post('/v1/mandates', base({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 800 } })))
    .body.mandate;
  const approvals = await Promise.all([1, 2, 3].map(() => m.http.post(`/v1/sandbox/mandates/${twice.id}/approve`)));
  t.deepEqual(
    approvals.map((r) => r.status),
    [200, 200, 200],
  );
  t.is((await sql(`select 1 from events where type = 'mandate.approved' and resource_id = ?`, [twice.id])).length, 1);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${twice.chargeId}`)).body.charge.status === 'PAID');
  await new Promise((r) => setTimeout(r, 300));
  t.is(
    (
      await sql('select 1 from unmatched_payments where txid = (select txid from charges where id = ?)', [
        twice.chargeId,
      ])
    ).length,
    0,
  );
  // approve racing reject: exactly one wins
  const md = (await m.http.post('/v1/mandates', base())).body.mandate;
  const rs = await Promise.all([
    m.http.post(`/v1/sandbox/mandates/${md.id}/approve`),
    m.http.post(`/v1/sandbox/mandates/${md.id}/reject`),
  ]);
  t.deepEqual(rs.map((r) => r.status).sort(), [200, 422]);
});

test('bodiless requests never reach a 5xx: approve, reject, payer-cancel, request, PATCH', async (t) => {
  const m = await company();
  const md = (await m.http.post('/v1/mandates', base())).body.mandate;
  const call = (method: string, path: string) => m.http.call(method, path, undefined);
  t.is((await call('PATCH', `/v1/mandates/${md.id}`)).status, 400); // a PATCH needs its JSON body
  t.is((await call('POST', `/v1/mandates/${md.id}/request`)).status, 422);
  t.is((await call('POST', `/v1/sandbox/mandates/${md.id}/approve`)).status, 200);
  t.is((await call('POST', `/v1/sandbox/mandates/${md.id}/reject`)).status, 422);
  t.is((await call('POST', `/v1/sandbox/mandates/${md.id}/payer-cancel`)).status, 200);
  t.is((await m.http.post('/v1/mandates', 'not json')).status, 400);
  t.is((await m.http.post('/v1/mandates', [])).status, 400);
});

test.serial('a prerequisite gone while the PSP registered the mandate: 403 naming it, nothing stored', async (t) => {
  const m = await company();
  const acquirer = app.deps.acquirer;
  const original = acquirer.createMandate;
  acquirer.createMandate = async (id, input) => {
    await sql(`update pix_keys set status = 'INACTIVE' where merchant_id = ?`, [m.merchantId]);
    return original.call(acquirer, id, input);
  };
  try {
    const r = await m.http.post('/v1/mandates', base());
    t.deepEqual([r.status, r.body], [403, { code: 'prerequisites_missing', message: 'Nenhuma chave PIX ativa' }]);
  } finally {
    acquirer.createMandate = original;
  }
  t.is(Number((await sql('select count(*) as n from mandates where merchant_id = ?', [m.merchantId]))[0].n), 0);
});

test.serial(
  'a PSP that does not answer: 503, nothing stored; the retry with the same key reuses the first payment',
  async (t) => {
    const m = await company();
    const acquirer = app.deps.acquirer;
    const original = acquirer.createMandate;
    acquirer.createMandate = async () => {
      throw new AcquirerUnavailableError();
    };
    const key = { 'x-idempotency-key': `down-${Date.now()}` };
    const body = base({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 1200 } });
    try {
      const r = await m.http.post('/v1/mandates', body, key);
      t.deepEqual(
        [r.status, r.body],
        [
          503,
          { code: 'acquirer_unavailable', message: 'Adquirente indisponível no momento; tente novamente em instantes' },
        ],
      );
    } finally {
      acquirer.createMandate = original;
    }
    t.is(Number((await sql('select count(*) as n from mandates where merchant_id = ?', [m.merchantId]))[0].n), 0);
    const retry = await m.http.post('/v1/mandates', body, key);
    t.is(retry.status, 201);
    const charges = await sql('select id from charges where merchant_id = ?', [m.merchantId]);
    t.deepEqual(
      charges.map((c) => c.id),
      [retry.body.mandate.chargeId],
    );
  },
);
