import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { RATE_LIMIT_MESSAGE } from '../src/platform/rate-limits.ts';
import { renderPaymentPage } from '../src/payment-page/payment-page.html.ts';
import type { MandateTerms } from '../src/payment-page/payment-page.service.ts';
import { parseBrCode } from '../src/pix/brcode.ts';
import { createCnpjMerchant } from './support/recurring.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { addDays, saoPauloDate } from '../src/charges/due-date.ts';

// The hosted payment page over HTTP (the browser test, payment-page.browser.test.ts, drives it in Chromium).
const PUBLIC_BASE_URL = 'https://pagamentos.example.test';
const ENV = { PUBLIC_BASE_URL };
let app: TestApp;
let stopWorker: () => Promise<void>;
test.before(async () => {
  app = await startTestApp(ENV);
  stopWorker = await startBackground(app, 'worker', ENV);
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

const anon = () => client(app.baseUrl);
const sql = (q: string, params: unknown[] = []) => app.orm.em.fork().execute(q, params);
const NBSP = '\u00a0'; // Intl puts a no-break space between R$ and the amount

async function newCharge(body: Record<string, unknown> = {}) {
  const m = await createOnboardedMerchant(app);
  const res = await m.http.post('/v1/charges', { amount: 1050, description: 'Pedido 1', ...body });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return { m, charge: res.body.charge };
}

test('every charge carries paymentUrl: creation, replay, fetch, listing, refund and the charge.* events', async (t) => {
  const { m, charge } = await newCharge();
  const url = `${PUBLIC_BASE_URL}/pay/${charge.id}`;
  t.is(charge.paymentUrl, url);
  const key = { 'x-idempotency-key': 'pedido-1' };
  const first = await m.http.post('/v1/charges', { amount: 500, description: 'outro' }, key);
  const replay = await m.http.post('/v1/charges', { amount: 500, description: 'outro' }, key);
  t.is(replay.status, 200);
  t.is(replay.body.charge.paymentUrl, `${PUBLIC_BASE_URL}/pay/${first.body.charge.id}`);
  t.is((await m.http.get(`/v1/charges/${charge.id}`)).body.charge.paymentUrl, url);
  const listed = (await m.http.get('/v1/charges')).body.charges as { id: string; paymentUrl: string }[];
  t.is(listed.find((c) => c.id === charge.id)?.paymentUrl, url);

  t.is((await m.http.post(`/v1/sandbox/charges/${charge.id}/pay`)).status, 202);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${charge.id}`)).body.charge.status === 'PAID');
  const refund = await m.http.post(`/v1/charges/${charge.id}/refund`);
  t.is(refund.body.charge.paymentUrl, url);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${charge.id}`)).body.charge.status === 'REFUNDED');
  const events = await sql(`select type, data->>'paymentUrl' as url from events where data->>'id' = ? order by type`, [
    charge.id,
  ]);
  t.deepEqual(events, [
    { type: 'charge.paid', url },
    { type: 'charge.refunded', url },
  ]);
});

test('GET /pay/:id: the payer sees the merchant, description, amount, QR and code, escaped, and nothing private', async (t) => {
  const customer = { name: 'Maria Pagadora', document: cpf() };
  const { charge } = await newCharge({
    description: 'Bolo <script>alert(1)</script> & "café"',
    customer,
    tracking: { utm_source: 'segredo-da-campanha' },
  });
  const res = await anon().get(`/pay/${charge.id}`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.is(res.headers.get('cache-control'), 'no-cache');
  t.is(res.headers.get('x-robots-tag'), 'noindex');
  t.regex(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const html = res.body as string;
  t.true(html.includes('<html lang="pt-BR">'));
  t.true(html.includes('<h1 class="merchant">Loja Teste</h1>'));
  t.true(
    html.includes('Bolo &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;café&quot;'),
    'the description, escaped',
  );
  t.false(html.includes('<script>alert'));
  t.true(html.includes(`R$${NBSP}10,50`));
  t.true(html.includes(`>${charge.qrCode}</textarea>`), 'the copy-and-paste code');
  t.true(html.includes('>Copiar código</button>'));
  t.true(html.includes('Aguardando pagamento'));
  t.regex(html, /<img class="qr" src="data:image\/png;base64,[A-Za-z0-9+/=]+" width="\d+" height="\d+" alt="[^"]+">/);
  // no inline script or style: every script has a src, no on* handler, no style attribute
  t.deepEqual(html.match(/<script(?![^>]* src="\/pay\/assets\/pay\.js\?v=[0-9a-f]{12}")[^>]*>/g), null);
  t.false(/\son[a-z]+=/i.test(html));
  t.false(/\sstyle=/i.test(html));
  // nothing the payer has no business seeing: the customer, the tracking, the merchant's document
  for (const secret of [customer.name, customer.document, 'segredo-da-campanha'])
    t.false(html.includes(secret), secret);
});

test('a due-date charge shows its due date and the amount due today (and the original when they differ)', async (t) => {
  const { m, charge } = await newCharge();
  const view = (await m.http.get(`/v1/charges/${charge.id}`)).body.charge;
  const assets = { css: '/pay/assets/pay.css', js: '/pay/assets/pay.js' };
  const page = (due: { dueDate: string; amountDue: number }) =>
    renderPaymentPage(
      { charge: { ...view, type: 'DUE_DATE', ...due }, merchantName: 'Loja', status: 'PENDING' },
      assets,
    );
  const late = page({ dueDate: '2026-12-10', amountDue: 1_133 });
  t.true(late.includes('<dt>Vencimento</dt><dd>10/12/2026</dd>'));
  t.true(late.includes(`Valor para pagamento hoje</span> <span class="amount-value">R$${NBSP}11,33</span>`));
  t.true(late.includes(`<dt>Valor original</dt><dd>R$${NBSP}10,50</dd>`));
  const onTime = page({ dueDate: '2026-01-05', amountDue: 1_050 });
  t.true(onTime.includes('<dt>Vencimento</dt><dd>05/01/2026</dd>'));
  t.true(onTime.includes(`Valor para pagamento hoje</span> <span class="amount-value">R$${NBSP}10,50</span>`));
  t.false(onTime.includes('Valor original'), 'no original amount when it is what is due');
  // an immediate charge shows neither
  const html = (await anon().get(`/pay/${charge.id}`)).body as string;
  t.false(html.includes('Vencimento'));
  t.true(html.includes(`<span class="amount-label">Valor</span> <span class="amount-value">R$${NBSP}10,50</span>`));
});

test('a real due-date charge: its due date and the amount due today, then what was paid', async (t) => {
  const today = saoPauloDate(new Date());
  const dueDate = addDays(today, 10);
  const { m, charge } = await newCharge({
    dueDate,
    customer: { name: 'Maria Pagadora', document: cpf() },
    discount: { mode: 'FIXED_UNTIL', dates: [{ until: dueDate, amount: 50 }] },
  });
  t.like(charge, { type: 'DUE_DATE', amountDue: 1_000, paymentUrl: `${PUBLIC_BASE_URL}/pay/${charge.id}` });
  const [y, mo, d] = dueDate.split('-');
  const html = (await anon().get(`/pay/${charge.id}`)).body as string;
  t.true(html.includes(`<dt>Vencimento</dt><dd>${d}/${mo}/${y}</dd>`));
  t.true(html.includes(`Valor para pagamento hoje</span> <span class="amount-value">R$${NBSP}10,00</span>`));
  t.true(html.includes(`<dt>Valor original</dt><dd>R$${NBSP}10,50</dd>`));
  t.false(html.includes('Maria Pagadora'), 'the payer (devedor) is not shown');

  await m.http.post(`/v1/sandbox/charges/${charge.id}/pay`);
  await waitUntil(async () => (await anon().get(`/pay/${charge.id}/status`)).body.status === 'PAID');
  const paid = (await anon().get(`/pay/${charge.id}`)).body as string;
  t.true(paid.includes(`Valor pago</span> <span class="amount-value">R$${NBSP}10,00</span>`));
  t.true(paid.includes('Pagamento confirmado'));
});

test('GET /pay/:id/status answers the status and its words, by id only, cacheable for a second', async (t) => {
  const { m, charge } = await newCharge();
  const res = await anon().get(`/pay/${charge.id}/status`);
  t.is(res.status, 200);
  t.deepEqual(res.body, {
    status: 'PENDING',
    tone: 'pending',
    title: 'Aguardando pagamento',
    detail: 'Esta página se atualiza sozinha quando o pagamento for confirmado.',
  });
  t.is(res.headers.get('cache-control'), 'public, max-age=1');
  await m.http.post(`/v1/sandbox/charges/${charge.id}/pay`);
  const paid = await waitUntil(async () => {
    const r = await anon().get(`/pay/${charge.id}/status`);
    return r.body.status === 'PAID' && r.body;
  });
  t.like(paid, { tone: 'paid', title: 'Pagamento confirmado' });
  const page = (await anon().get(`/pay/${charge.id}`)).body as string;
  t.true(page.includes('Pagamento confirmado'));
  t.regex(page, /<section id="payable"[^>]* hidden>/, 'the QR and the code are hidden once paid');
});

test('a charge past its expiry shows Cobrança expirada at once, before the sweep records it', async (t) => {
  const { charge } = await newCharge();
  await sql(`update charges set expires_at = now() - interval '1 second' where id = ?`, [charge.id]);
  const status = await anon().get(`/pay/${charge.id}/status`);
  t.like(status.body, { status: 'CANCELED', tone: 'closed', title: 'Cobrança expirada' });
  const page = (await anon().get(`/pay/${charge.id}`)).body as string;
  t.true(page.includes('Cobrança expirada'));
  t.regex(page, /<section id="payable"[^>]* hidden>/);
  t.is((await sql('select status from charges where id = ?', [charge.id]))[0].status, 'PENDING', 'read only');
});

test('unknown or malformed ids: a Portuguese 404 page, and a JSON 404 for the status, never a 5xx', async (t) => {
  const ids = [
    '019a8f3c-5e7b-7d2a-9c4e-1f6b8a3d5c72', // well formed, unknown
    'nao-existe',
    '1',
    "'; drop table charges; --",
    '%E0%A4%A',
    'a\u0000b',
    'x'.repeat(2000),
    '019a8f3c-5e7b-7d2a-9c4e-1f6b8a3d5c7Z',
  ];
  for (const id of ids) {
    const page = await anon().get(`/pay/${encodeURIComponent(id)}`);
    t.is(page.status, 404, id);
    t.regex(page.headers.get('content-type') ?? '', /^text\/html/, id);
    t.true((page.body as string).includes('Cobrança não encontrada'), id);
    const status = await anon().get(`/pay/${encodeURIComponent(id)}/status`);
    t.is(status.status, 404, id);
    t.deepEqual(status.body, { code: 'not_found', message: 'Cobrança não encontrada' }, id);
  }
  const raw = await fetch(`${app.baseUrl}/pay/%E0%A4%A`);
  t.is(raw.status, 404, 'a malformed escape in the path');
  t.true((await raw.text()).includes('Cobrança não encontrada'));
  const rawStatus = await fetch(`${app.baseUrl}/pay/%E0%A4%A/status`);
  t.is(rawStatus.status, 404);
  t.deepEqual(await rawStatus.json(), { code: 'not_found', message: 'Cobrança não encontrada' });
});

test('the assets: served by the API, versioned, immutable at their current version', async (t) => {
  const { charge } = await newCharge();
  const html = (await anon().get(`/pay/${charge.id}`)).body as string;
  for (const [, path, type] of [
    [null, html.match(/href="(\/pay\/assets\/pay\.css\?v=[0-9a-f]{12})"/)?.[1], 'text/css'],
    [null, html.match(/src="(\/pay\/assets\/pay\.js\?v=[0-9a-f]{12})"/)?.[1], 'text/javascript'],
  ]) {
    t.truthy(path);
    const res = await fetch(app.baseUrl + path);
    t.is(res.status, 200);
    t.regex(res.headers.get('content-type') ?? '', new RegExp(`^${type}`));
    t.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const stale = await fetch(app.baseUrl + path!.replace(/v=\w+/, 'v=old'));
    t.is(stale.headers.get('cache-control'), 'public, max-age=300');
  }
  t.is((await fetch(`${app.baseUrl}/pay/assets/other.js`)).status, 404);
  t.is((await fetch(`${app.baseUrl}/pay/assets/__proto__`)).status, 404);
});

test('the public pages spend a per-IP budget: 429 as a page for the page, as JSON for the status', async (t) => {
  const limited = await startTestApp(
    { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PUBLIC_PER_MINUTE: '3', TRUST_PROXY: '1' },
    { databaseUrl: app.databaseUrl },
  );
  t.teardown(() => limited.close());
  const { charge } = await newCharge();
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const http = client(limited.baseUrl);
  const first = await Promise.all([1, 2, 3].map(() => http.get(`/pay/${charge.id}/status`, from('203.0.113.7'))));
  t.deepEqual(
    first.map((r) => r.status),
    [200, 200, 200],
  );
  const status = await http.get(`/pay/${charge.id}/status`, from('203.0.113.7'));
  t.is(status.status, 429);
  t.deepEqual(status.body, { code: 'rate_limited', message: RATE_LIMIT_MESSAGE });
  t.true(Number(status.headers.get('retry-after')) >= 1);
  const page = await http.get(`/pay/${charge.id}`, from('203.0.113.7'));
  t.is(page.status, 429);
  t.true((page.body as string).includes('Muitas requisições'));
  t.is((await http.get(`/pay/${charge.id}`, from('203.0.113.8'))).status, 200, 'another IP has its own budget');
  const asset = (page.body as string).match(/src="(\/pay\/assets\/pay\.js\?v=\w+)"/)![1];
  t.is((await fetch(limited.baseUrl + asset, { headers: from('203.0.113.7') })).status, 200, 'assets spend nothing');
});

// Pix Automático (QR_WITH_PAYMENT, DUE_DATE_QR): the first payment's page shows the mandate's BR Code (payment and
// recurrence, field 80) and, before it, what paying it authorises.
test('a charge paid with a mandate shows its terms and its combined BR Code instead of the charge own', async (t) => {
  const { m, charge } = await newCharge();
  const view = (await m.http.get(`/v1/charges/${charge.id}`)).body.charge;
  const assets = { css: '/pay/assets/pay.css', js: '/pay/assets/pay.js' };
  const combined = '00020101021226...80<recorrência>6304ABCD';
  const terms: MandateTerms = {
    contract: 'CT-2027/001',
    object: 'Plano <Família> & "Plus"',
    frequency: 'MONTHLY',
    startDate: '2027-01-05',
    endDate: null,
    amount: 4_990,
    minAmount: null,
    qrCode: combined,
  };
  const page = (mandate: MandateTerms, status: 'PENDING' | 'PAID' = 'PENDING') =>
    renderPaymentPage({ charge: view, merchantName: 'Academia Boa Forma', status, mandate }, assets);
  const fixed = page(terms);
  t.true(fixed.includes(`>${'00020101021226...80&lt;recorrência&gt;6304ABCD'}</textarea>`), 'the mandate code');
  t.false(fixed.includes(charge.qrCode), 'not the charge own');
  t.true(fixed.includes('<h2 id="recurrence-title">Autorização de Pix Automático</h2>'));
  t.true(fixed.includes('Ao pagar com este código, você também autoriza <strong>Academia Boa Forma</strong>'));
  for (const fact of [
    '<dt>Recebedor</dt><dd>Academia Boa Forma</dd>',
    '<dt>Objeto</dt><dd>Plano &lt;Família&gt; &amp; &quot;Plus&quot;</dd>',
    '<dt>Contrato</dt><dd>CT-2027/001</dd>',
    '<dt>Frequência</dt><dd>Mensal</dd>',
    `<dt>Valor</dt><dd>R$${NBSP}49,90 a cada cobrança</dd>`,
    '<dt>Início</dt><dd>05/01/2027</dd>',
    '<dt>Término</dt><dd>Sem data de término</dd>',
  ])
    t.true(fixed.includes(fact), fact);
  t.regex(fixed, /alt="QR Code PIX para pagar [^"]+ e autorizar o Pix Automático"/);

  const variable = page({ ...terms, amount: null, minAmount: 2_000, frequency: 'WEEKLY', endDate: '2027-12-31' });
  t.true(
    variable.includes(`<dt>Valor</dt><dd>Valor variável (você define um limite de no mínimo R$${NBSP}20,00)</dd>`),
  );
  t.true(variable.includes('<dt>Frequência</dt><dd>Semanal</dd>'));
  t.true(variable.includes('<dt>Término</dt><dd>31/12/2027</dd>'));
  const open = page({ ...terms, amount: null, minAmount: null });
  t.true(open.includes('<dt>Valor</dt><dd>Valor variável (você pode definir um limite)</dd>'));
  t.true(page(terms, 'PAID').includes('Esta cobrança inclui uma autorização de Pix Automático'));

  // a charge without a mandate: its own code, no terms
  const plain = (await anon().get(`/pay/${charge.id}`)).body as string;
  t.true(plain.includes(`>${charge.qrCode}</textarea>`));
  t.false(plain.includes('Pix Automático'));
});

// The same with the real API: QR_WITH_PAYMENT creates the charge, DUE_DATE_QR takes one; the page of that charge
// carries the mandate's BR Code (field 80, the recurrence) and its terms, until the mandate can no longer be approved.
test('the first payment of a QR_WITH_PAYMENT or DUE_DATE_QR mandate: its terms and the combined BR Code', async (t) => {
  const m = await createCnpjMerchant(app);
  const today = saoPauloDate(new Date());
  const customer = { name: 'Ana Cliente', document: cpf() };
  const mandateOf = async (body: Record<string, unknown>) => {
    const res = await m.http.post('/v1/mandates', {
      customer,
      contract: 'ACAD-2027-15',
      object: 'Academia: plano anual',
      frequency: 'MONTHLY',
      startDate: plusDays(today, 3),
      ...body,
    });
    if (res.status !== 201) throw new Error(`mandate: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.mandate;
  };
  const withPayment = await mandateOf({ journey: 'QR_WITH_PAYMENT', amount: 9_990, firstPayment: { amount: 5_000 } });
  t.is(withPayment.paymentUrl, `${PUBLIC_BASE_URL}/pay/${withPayment.chargeId}`);
  const charge = (await m.http.get(`/v1/charges/${withPayment.chargeId}`)).body.charge;
  t.not(withPayment.qrCode, charge.qrCode);
  t.truthy(parseBrCode(withPayment.qrCode).templates['80']?.['25'], 'the mandate code carries the recurrence');
  const html = (await anon().get(`/pay/${withPayment.chargeId}`)).body as string;
  t.true(html.includes(`>${withPayment.qrCode}</textarea>`), 'the combined BR Code');
  t.false(html.includes(`>${charge.qrCode}</textarea>`));
  t.true(html.includes(`<span class="amount-value">R$${NBSP}50,00</span>`), 'what is paid now: the first payment');
  for (const fact of [
    '<dt>Recebedor</dt><dd>Loja Teste</dd>',
    '<dt>Objeto</dt><dd>Academia: plano anual</dd>',
    '<dt>Contrato</dt><dd>ACAD-2027-15</dd>',
    '<dt>Frequência</dt><dd>Mensal</dd>',
    `<dt>Valor</dt><dd>R$${NBSP}99,90 a cada cobrança</dd>`,
    `<dt>Início</dt><dd>${plusDays(today, 3).split('-').reverse().join('/')}</dd>`,
    '<dt>Término</dt><dd>Sem data de término</dd>',
  ])
    t.true(html.includes(fact), fact);
  t.false(html.includes(customer.document), 'the payer document is not shown');

  // DUE_DATE_QR: a due-date charge of the same customer, a variable mandate with an end
  const due = await m.http.post('/v1/charges', {
    amount: 12_000,
    description: 'Matrícula',
    dueDate: plusDays(today, 5),
    customer,
  });
  const dueMandate = await mandateOf({
    journey: 'DUE_DATE_QR',
    chargeId: due.body.charge.id,
    minAmount: 3_000,
    frequency: 'QUARTERLY',
    endDate: plusDays(today, 300),
  });
  const dueHtml = (await anon().get(`/pay/${due.body.charge.id}`)).body as string;
  t.true(dueHtml.includes(`>${dueMandate.qrCode}</textarea>`));
  t.true(dueHtml.includes('<dt>Frequência</dt><dd>Trimestral</dd>'));
  t.true(dueHtml.includes(`Valor variável (você define um limite de no mínimo R$${NBSP}30,00)`));
  t.true(dueHtml.includes(`<dt>Término</dt><dd>${plusDays(today, 300).split('-').reverse().join('/')}</dd>`));
  t.true(dueHtml.includes('<dt>Vencimento</dt>'), 'still a due-date charge');

  // rejected by the payer: nothing left to authorise, the charge's own code
  t.is((await m.http.post(`/v1/sandbox/mandates/${dueMandate.id}/reject`)).status, 200);
  const after = (await anon().get(`/pay/${due.body.charge.id}`)).body as string;
  t.true(after.includes(`>${due.body.charge.qrCode}</textarea>`));
  t.false(after.includes('Pix Automático'));
});

test('a recurring charge hidden charge (type RECURRING) is never served by the page', async (t) => {
  const { charge } = await newCharge();
  await sql(`update charges set type = 'RECURRING' where id = ?`, [charge.id]);
  t.is((await anon().get(`/pay/${charge.id}`)).status, 404);
  t.is((await anon().get(`/pay/${charge.id}/status`)).status, 404);
});
