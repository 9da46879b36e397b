import test, { type ExecutionContext } from 'ava';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { watchedPage } from './support/portal-page.ts';
import { cpf } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { createCnpjMerchant } from './support/recurring.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { plusDays } from '../src/recurring/calendar.ts';

// The portal's Pix Automático screens in Debian's Chromium (playwright-core), as portal.browser.test.ts drives the
// rest of the portal: a CNPJ merchant creates mandates in the browser, the sandbox's payer approves them, and the
// merchant charges, cancels a charge and cancels a mandate by clicking, each checked through the API; axe on every
// screen, at 1280x800 and 390x844, screenshots in test-output/.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HOST = 'portal.example.test';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
const NBSP = '\u00a0';
const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const brl = (centavos: number) => BRL.format(centavos / 100).replaceAll(NBSP, ' ');
const OUT = 'test-output';

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };
type Merchant = Awaited<ReturnType<typeof createCnpjMerchant>>;

let app: TestApp;
let stopWorker: () => Promise<void>;
let browser: Browser;
let origin: string;
test.before(async () => {
  app = await startTestApp();
  stopWorker = await startBackground(app, 'worker');
  origin = `http://${HOST}:${new URL(app.baseUrl).port}`;
  if (existsSync(CHROMIUM))
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
    });
  mkdirSync(OUT, { recursive: true });
});
test.after.always(async () => {
  await browser?.close();
  await stopWorker?.();
  await app?.close();
});

function needsChromium(t: ExecutionContext): boolean {
  if (browser) return true;
  t.fail(`no Chromium at ${CHROMIUM}: apt-get install -y chromium, or point CHROMIUM_PATH at a Chromium binary`);
  return false;
}

// A page that records script errors, CSP violations, failed responses and requests to another origin.
function open(t: ExecutionContext, viewport: { width: number; height: number }) {
  return watchedPage(t, browser, origin, viewport);
}

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } };
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

async function check(t: ExecutionContext, page: Page, name: string, size: string) {
  t.deepEqual(await seriousViolations(page), [], `${name} (${size}): no serious or critical accessibility violation`);
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  t.true(width <= page.viewportSize()!.width, `${name} (${size}): no horizontal scroll (${width} px)`);
  await page.screenshot({ path: `${OUT}/portal-${name}-${size}.png`, fullPage: true });
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name, exact: true }).click();
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
const loaded = (page: Page) => page.getByText('Carregando…').first().waitFor({ state: 'detached' });
const badge = (scope: Page | Locator, label: string) =>
  scope.locator('.badge', { hasText: new RegExp(`^${label}$`) }).first();
// the mandate's own card (its badge), not its history's or its charges'
const summary = (page: Page) => page.locator('section[aria-labelledby="resumo"]');
const idFromHash = (page: Page) => decodeURIComponent(new URL(page.url()).hash.split('/')[2]);

async function logIn(page: Page, m: Merchant) {
  await page.goto(`${origin}/portal`);
  await page.getByLabel('E-mail').fill(m.email);
  await page.getByLabel('Senha').fill(m.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await heading(page, 'Início');
}

async function newMandateForm(page: Page) {
  await nav(page, 'Pix Automático');
  await heading(page, 'Pix Automático');
  await loaded(page);
  await page.getByText('Nova autorização').click();
}

test.serial(
  'a merchant creates a mandate (QR), sees it approved, charges a cycle, cancels that charge, then the mandate',
  async (t) => {
    if (!needsChromium(t)) return;
    const m = await createCnpjMerchant(app);
    const today = saoPauloDate(new Date());
    const payer = { name: 'Maria Assinante', document: cpf() };
    const { page, problems, elsewhere } = await open(t, DESKTOP);
    await logIn(page, m);

    // the list, empty; a new mandate of R$ 49,90 a month from tomorrow, no end
    await newMandateForm(page);
    await page.getByText('Nenhuma autorização.').waitFor();
    await page.getByLabel('Jornada').selectOption('QR');
    await page.getByLabel('Nome do pagador').fill(payer.name);
    await page.getByLabel('CPF ou CNPJ do pagador').fill(payer.document);
    await page.getByLabel('Número do contrato').fill('CT-2027-0042');
    await page.getByLabel('Objeto', { exact: true }).fill('Plano Família');
    await page.getByLabel('Frequência').selectOption('MONTHLY');
    await page.getByLabel('Início').fill(plusDays(today, 1));
    await page.getByLabel('Valor de cada cobrança (R$)').fill('49,90');
    await check(t, page, 'pix-automatico-nova', 'desktop');
    await page.getByRole('button', { name: 'Criar autorização' }).click();

    // its page: Criada, its terms, its QR code (the payer approves by scanning it)
    await heading(page, 'Autorização Pix Automático');
    const mandateId = idFromHash(page);
    const created = (await m.http.get(`/v1/mandates/${mandateId}`)).body.mandate;
    t.like(created, {
      journey: 'QR',
      status: 'CREATED',
      customer: payer,
      contract: 'CT-2027-0042',
      object: 'Plano Família',
      frequency: 'MONTHLY',
      startDate: plusDays(today, 1),
      endDate: null,
      amount: 4_990,
      minAmount: null,
      retryPolicy: 'NONE',
    });
    await badge(summary(page), 'Criada').waitFor();
    t.true(await page.getByRole('img', { name: /QR Code Pix Automático/ }).isVisible());
    t.is(await page.getByLabel('Pix Automático copia e cola').inputValue(), created.qrCode);
    const facts = (await page.locator('.facts').first().innerText()).replaceAll(NBSP, ' ');
    const cpfText = payer.document.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
    for (const shown of ['CT-2027-0042', 'Mensal', 'R$ 49,90 (fixo)', 'Sem data de término', created.recId, cpfText])
      t.true(facts.includes(shown), shown);
    await check(t, page, 'pix-automatico-autorizacao', 'desktop');

    // the payer approves (sandbox): the page turns to Aprovada by itself, the QR code goes
    t.is((await m.http.post(`/v1/sandbox/mandates/${mandateId}/approve`, {})).status, 200);
    await badge(summary(page), 'Aprovada').waitFor();
    t.false(await page.getByLabel('Pix Automático copia e cola').isVisible());

    // a recurring charge for the first cycle, due in 3 days: scheduled, its due date's attempt Agendada
    await page.getByText('Nova cobrança recorrente').click();
    t.is(await page.getByLabel('Valor (R$)').inputValue(), '49,90', 'a fixed mandate charges its amount');
    await page.getByLabel('Vencimento').fill(plusDays(today, 3));
    await page.getByLabel('Descrição (opcional)').fill('Janeiro');
    await page.getByRole('button', { name: 'Criar cobrança recorrente' }).click();
    await page.getByText('Cobrança de R$ 49,90 com vencimento em').waitFor();
    const row = page.locator('table.list tbody tr', { hasText: 'Janeiro' });
    await badge(row, 'Agendada').waitFor();
    const [charge] = (await m.http.get(`/v1/recurring-charges?mandateId=${mandateId}`)).body.recurringCharges;
    t.like(charge, { mandateId, cycle: 0, dueDate: plusDays(today, 3), amount: 4_990, description: 'Janeiro' });
    t.true(['CREATED', 'ACTIVE'].includes(charge.status));
    await check(t, page, 'pix-automatico-cobrancas', 'desktop');

    // cancelled before its due date, after a confirmation
    await row.getByRole('button', { name: 'Cancelar' }).click();
    await row.getByRole('button', { name: 'Confirmar cancelamento' }).click();
    await badge(row, 'Cancelada').waitFor();
    t.is((await m.http.get(`/v1/recurring-charges/${charge.id}`)).body.recurringCharge.status, 'CANCELED');
    t.false(await row.getByRole('button', { name: 'Cancelar' }).isVisible(), 'nothing left to cancel');

    // a new charge for the same cycle (the cancelled one does not count), paid by the payer's PSP (sandbox)
    await page.getByLabel('Vencimento').fill(plusDays(today, 4));
    await page.getByLabel('Descrição (opcional)').fill('Janeiro, de novo');
    await page.getByRole('button', { name: 'Criar cobrança recorrente' }).click();
    const again = page.locator('table.list tbody tr', { hasText: 'Janeiro, de novo' });
    await again.waitFor();
    const second = (await m.http.get(`/v1/recurring-charges?mandateId=${mandateId}&status=ACTIVE`)).body
      .recurringCharges[0];
    t.is((await m.http.post(`/v1/sandbox/recurring-charges/${second.id}/attempt`, { outcome: 'PAID' })).status, 202);
    await waitUntil(
      async () => (await m.http.get(`/v1/recurring-charges/${second.id}`)).body.recurringCharge.status === 'PAID',
    );
    await page.reload();
    await heading(page, 'Autorização Pix Automático');
    const paidRow = page.locator('table.list tbody tr', { hasText: 'Janeiro, de novo' });
    await badge(paidRow, 'Paga').waitFor();
    t.true((await paidRow.innerText()).includes('No vencimento'), 'its attempt');
    await check(t, page, 'pix-automatico-paga', 'desktop');

    // a part of it refunded, from its row; the row follows the refund until it completes
    await paidRow.getByRole('button', { name: 'Reembolsar' }).click();
    t.is(await paidRow.getByLabel('Valor do reembolso (R$)').inputValue(), '49,90', 'all of it, by default');
    await paidRow.getByLabel('Valor do reembolso (R$)').fill('10,00');
    await paidRow.getByRole('button', { name: 'Confirmar reembolso' }).click();
    await page.getByText('Reembolso de R$ 10,00 solicitado.').waitFor();
    await paidRow.getByText('reembolsado R$ 10,00').waitFor({ timeout: 30_000 });
    t.like((await m.http.get(`/v1/recurring-charges/${second.id}`)).body.recurringCharge, {
      status: 'PAID',
      refundedAmount: 1_000,
    });
    const refunds = (await m.http.get(`/v1/recurring-charges/${second.id}/refunds`)).body.refunds;
    t.like(refunds, [{ amount: 1_000, status: 'COMPLETED' }]);

    // the mandate cancelled, with a reason, after a confirmation
    await page.getByRole('button', { name: 'Cancelar autorização' }).click();
    await page.getByLabel('Motivo (opcional)').fill('Cliente mudou de plano');
    await check(t, page, 'pix-automatico-cancelar', 'desktop');
    await page.getByRole('button', { name: 'Confirmar cancelamento' }).click();
    await badge(summary(page), 'Cancelada').waitFor();
    const canceled = (await m.http.get(`/v1/mandates/${mandateId}`)).body.mandate;
    t.like(canceled, { status: 'CANCELED', cancellation: { by: 'MERCHANT', reason: 'Cliente mudou de plano' } });
    t.deepEqual(
      canceled.history.map((h: { status: string }) => h.status),
      ['CREATED', 'APPROVED', 'CANCELED'],
    );
    await page.getByText('por você: Cliente mudou de plano').waitFor();
    t.is(await page.locator('.history li').count(), 3, 'its history');
    t.false(await page.getByRole('button', { name: 'Cancelar autorização' }).isVisible());

    // Extrato: the recurring charge received, linked to its mandate
    await nav(page, 'Extrato');
    await heading(page, 'Extrato');
    const line = page.locator('table.list tbody tr', { hasText: 'Cobrança recorrente recebida' });
    const paid = (await m.http.get(`/v1/recurring-charges/${second.id}`)).body.recurringCharge;
    t.true(
      (await line.innerText()).replaceAll(NBSP, ' ').includes(`+${brl(paid.paidAmount - paid.fee)}`),
      'credited net of the fee',
    );
    await line.getByRole('link', { name: 'Ver cobrança recorrente' }).click();
    await heading(page, 'Autorização Pix Automático');
    t.is(idFromHash(page), mandateId);
    await badge(summary(page), 'Cancelada').waitFor();

    // the list: the mandate with its badge; the status filter
    await page.getByRole('link', { name: 'Voltar ao Pix Automático' }).click();
    await heading(page, 'Pix Automático');
    const listed = page.locator('table.list tbody tr', { hasText: payer.name });
    await badge(listed, 'Cancelada').waitFor();
    await page.getByLabel('Status').selectOption('APPROVED');
    await page.getByText('Nenhuma autorização.').waitFor();
    await page.getByLabel('Status').selectOption('CANCELED');
    await listed.waitFor();
    // by payer: this one's document, then another's
    await page.getByLabel('Pagador (CPF ou CNPJ)').fill(payer.document);
    await page.getByRole('button', { name: 'Buscar' }).click();
    await listed.waitFor();
    await page.getByLabel('Pagador (CPF ou CNPJ)').fill(cpf());
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.getByText('Nenhuma autorização.').waitFor();
    await page.getByLabel('Pagador (CPF ou CNPJ)').fill('');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await listed.waitFor();
    await check(t, page, 'pix-automatico', 'desktop');

    t.deepEqual(problems, [], 'no script error, no CSP violation, no failed request');
    t.deepEqual(elsewhere, [], 'nothing requested from another origin');
  },
);

test.serial(
  'QR_WITH_PAYMENT in the portal: a variable mandate with its first payment, whose payer page carries both',
  async (t) => {
    if (!needsChromium(t)) return;
    const m = await createCnpjMerchant(app);
    const today = saoPauloDate(new Date());
    const { page, problems, elsewhere } = await open(t, DESKTOP);
    await logIn(page, m);
    await newMandateForm(page);
    await page.getByLabel('Jornada').selectOption('QR_WITH_PAYMENT');
    await page.getByLabel('Nome do pagador').fill('João Pagador');
    await page.getByLabel('CPF ou CNPJ do pagador').fill(cpf());
    await page.getByLabel('Número do contrato').fill('LUZ-778');
    await page.getByLabel('Objeto', { exact: true }).fill('Conta de luz');
    await page.getByLabel('Frequência').selectOption('MONTHLY');
    await page.getByLabel('Novas tentativas após recusa').selectOption('THREE_IN_SEVEN_DAYS');
    await page.getByLabel('Início').fill(plusDays(today, 5));
    await page.getByLabel('Término (opcional)').fill(plusDays(today, 400));
    await page.getByLabel('Valor variável').check();
    await page.getByLabel('Valor mínimo do limite do pagador (R$, opcional)').fill('20,00');
    await page.getByLabel('Valor do primeiro pagamento (R$)').fill('130,25');
    await check(t, page, 'pix-automatico-nova-pagamento', 'desktop');
    await page.getByRole('button', { name: 'Criar autorização' }).click();
    await heading(page, 'Autorização Pix Automático');
    const mandate = (await m.http.get(`/v1/mandates/${idFromHash(page)}`)).body.mandate;
    t.like(mandate, {
      journey: 'QR_WITH_PAYMENT',
      amount: null,
      minAmount: 2_000,
      retryPolicy: 'THREE_IN_SEVEN_DAYS',
      endDate: plusDays(today, 400),
    });
    t.truthy(mandate.chargeId);
    t.is((await m.http.get(`/v1/charges/${mandate.chargeId}`)).body.charge.amount, 13_025);
    t.is(await page.getByLabel('Pix Automático copia e cola').inputValue(), mandate.qrCode);
    t.true(await page.getByRole('link', { name: 'Ver a cobrança' }).isVisible());

    // the payer's page of the first payment: the mandate's terms, and its BR Code, not the charge's own
    const payer = await page.context().newPage();
    await payer.goto(origin + new URL(mandate.paymentUrl).pathname);
    await payer.getByRole('heading', { name: 'Autorização de Pix Automático' }).waitFor();
    t.is(await payer.getByLabel('Código PIX copia e cola').inputValue(), mandate.qrCode);
    const terms = (await payer.locator('.terms').innerText()).replaceAll(NBSP, ' ');
    for (const shown of ['Conta de luz', 'LUZ-778', 'Mensal', 'Valor variável', 'R$ 20,00'])
      t.true(terms.includes(shown), shown);
    t.deepEqual(await seriousViolations(payer), []);
    await payer.close();

    // the payer approves with a maximum of R$ 500,00 (and pays the first charge); a cycle's charge is refused (AM04):
    // the merchant schedules a new attempt from the mandate's page
    t.is((await m.http.post(`/v1/sandbox/mandates/${mandate.id}/approve`, { payerMaxAmount: 50_000 })).status, 200);
    await badge(summary(page), 'Aprovada').waitFor();
    t.true((await summary(page).innerText()).replaceAll(NBSP, ' ').includes('R$ 500,00'), 'the payer maximum');
    const dueDate = plusDays(today, 5);
    const created = await m.http.post(`/v1/mandates/${mandate.id}/charges`, { dueDate, amount: 18_790 });
    t.is(created.status, 201);
    const chargeId = created.body.recurringCharge.id;
    const refused = await m.http.post(`/v1/sandbox/recurring-charges/${chargeId}/attempt`, { outcome: 'REJECTED' });
    t.is(refused.status, 200);
    t.like(refused.body.recurringCharge, { status: 'ACTIVE', retriesLeft: 3 });
    await page.reload();
    const row = page.locator('table.list tbody tr', { hasText: 'R$ 187,90' });
    await badge(row, 'Recusada').waitFor();
    t.true((await row.innerText()).includes('(AM04)'), 'the failure code');
    await row.getByRole('button', { name: 'Nova tentativa' }).click();
    t.is(await row.getByLabel('Data da nova tentativa').inputValue(), plusDays(dueDate, 1));
    await check(t, page, 'pix-automatico-tentativa', 'desktop');
    await row.getByRole('button', { name: 'Agendar tentativa' }).click();
    await row.locator('.attempts li').nth(1).waitFor();
    t.regex(await row.locator('.attempts li').nth(1).innerText(), /Nova tentativa\s+Agendada/);
    const retried = (await m.http.get(`/v1/recurring-charges/${chargeId}`)).body.recurringCharge;
    t.like(retried, { status: 'ACTIVE', retriesLeft: 2 });
    t.like(retried.attempts, [
      { kind: 'DUE_DATE', status: 'REJECTED', failureCode: 'AM04' },
      { kind: 'RETRY', status: 'SCHEDULED', date: plusDays(dueDate, 1) },
    ]);
    t.false(await row.getByRole('button', { name: 'Nova tentativa' }).isVisible(), 'one is scheduled');
    t.deepEqual(problems, []);
    t.deepEqual(elsewhere, []);
  },
);

test.serial(
  'PUSH in the portal: the payer account, the request to its bank, a new request once it expired',
  async (t) => {
    if (!needsChromium(t)) return;
    const m = await createCnpjMerchant(app);
    const today = saoPauloDate(new Date());
    const { page, problems, elsewhere } = await open(t, DESKTOP);
    await logIn(page, m);
    await newMandateForm(page);
    await page.getByLabel('Jornada').selectOption('PUSH');
    const holder = cpf();
    await page.getByLabel('Nome do pagador').fill('Pedro Titular');
    await page.getByLabel('CPF ou CNPJ do pagador').fill(holder);
    await page.getByLabel('Número do contrato').fill('ESC-2027-3');
    await page.getByLabel('Objeto', { exact: true }).fill('Mensalidade escolar');
    await page.getByLabel('Frequência').selectOption('MONTHLY');
    await page.getByLabel('Início').fill(plusDays(today, 10));
    await page.getByLabel('Valor de cada cobrança (R$)').fill('1.250,00');
    await page.getByLabel('ISPB do banco').fill('12345678');
    await page.getByLabel('Agência').fill('0001');
    await page.getByLabel('Conta', { exact: true }).fill('998877');
    await page.getByLabel('CPF ou CNPJ do titular').fill(holder);
    await page.getByLabel('Prazo para o pagador aprovar').selectOption('604800');
    await check(t, page, 'pix-automatico-nova-push', 'desktop');
    await page.getByRole('button', { name: 'Criar autorização' }).click();
    await heading(page, 'Autorização Pix Automático');
    const id = idFromHash(page);
    const created = (await m.http.get(`/v1/mandates/${id}`)).body.mandate;
    t.like(created, { journey: 'PUSH', amount: 125_000, qrCode: null });
    t.true(
      Math.abs(new Date(created.expiresAt).getTime() - new Date(created.createdAt).getTime() - 604_800_000) < 60_000,
      'the payer has 7 days',
    );
    // the worker sends the request to the payer's bank
    await waitUntil(async () => (await m.http.get(`/v1/mandates/${id}`)).body.mandate.request?.status === 'SENT');
    const request = page.locator('section[aria-labelledby="pedido"]');
    await badge(request, 'Enviado').waitFor();
    t.false(await page.getByRole('button', { name: 'Enviar novo pedido' }).isVisible(), 'one is on its way');

    // the payer's bank let it expire: a new one, from the mandate's page
    await app.orm.em.fork().execute(`update mandates set request_status = 'EXPIRED' where id = ?`, [id]);
    await badge(request, 'Expirado').waitFor(); // the page follows a mandate waiting for its payer
    await page.getByRole('button', { name: 'Enviar novo pedido' }).click();
    await badge(request, 'Enviado').waitFor();
    t.is((await m.http.get(`/v1/mandates/${id}`)).body.mandate.request.status, 'SENT');
    await check(t, page, 'pix-automatico-push', 'desktop');
    t.deepEqual(problems, []);
    t.deepEqual(elsewhere, []);
  },
);

test.serial('DUE_DATE_QR in the portal: a pending due-date charge chosen, its payer filled in', async (t) => {
  if (!needsChromium(t)) return;
  const m = await createCnpjMerchant(app);
  const today = saoPauloDate(new Date());
  const customer = { name: 'Escola Aluno Responsável', document: cpf() };
  const due = await m.http.post('/v1/charges', {
    amount: 80_000,
    description: 'Matrícula 2027',
    dueDate: plusDays(today, 6),
    customer,
  });
  t.is(due.status, 201);
  const { page, problems, elsewhere } = await open(t, DESKTOP);
  await logIn(page, m);
  await newMandateForm(page);
  await page.getByLabel('Jornada').selectOption('DUE_DATE_QR');
  await page.getByLabel('Cobrança com vencimento').selectOption(due.body.charge.id);
  t.is(await page.getByLabel('Nome do pagador').inputValue(), customer.name, 'the charge payer');
  t.is(await page.getByLabel('CPF ou CNPJ do pagador').inputValue(), customer.document);
  await page.getByLabel('Número do contrato').fill('MAT-2027-9');
  await page.getByLabel('Objeto', { exact: true }).fill('Mensalidades 2027');
  await page.getByLabel('Frequência').selectOption('MONTHLY');
  await page.getByLabel('Início').fill(plusDays(today, 30));
  await page.getByLabel('Valor de cada cobrança (R$)').fill('800,00');
  await check(t, page, 'pix-automatico-nova-vencimento', 'desktop');
  await page.getByRole('button', { name: 'Criar autorização' }).click();
  await heading(page, 'Autorização Pix Automático');
  const mandate = (await m.http.get(`/v1/mandates/${idFromHash(page)}`)).body.mandate;
  t.like(mandate, { journey: 'DUE_DATE_QR', chargeId: due.body.charge.id, customer, amount: 80_000 });
  t.is(await page.getByLabel('Pix Automático copia e cola').inputValue(), mandate.qrCode);
  await page.getByRole('link', { name: 'Ver a cobrança' }).click();
  await heading(page, 'Cobrança');
  t.deepEqual(problems, []);
  t.deepEqual(elsewhere, []);
});

test.serial(
  'the mandates list pages by 20; on a phone every Pix Automático screen reads and is accessible',
  async (t) => {
    if (!needsChromium(t)) return;
    const m = await createCnpjMerchant(app);
    const today = saoPauloDate(new Date());
    const body = (i: number) => ({
      journey: 'QR',
      customer: { name: `Cliente ${String(i).padStart(2, '0')}`, document: cpf() },
      contract: `C-${i}`,
      object: 'Mensalidade',
      frequency: 'MONTHLY',
      startDate: plusDays(today, 1),
      amount: 1_000 + i,
    });
    const ids: string[] = [];
    for (let i = 1; i <= 21; i++) {
      const res = await m.http.post('/v1/mandates', body(i));
      if (res.status !== 201) throw new Error(`mandate: ${res.status} ${JSON.stringify(res.body)}`);
      ids.push(res.body.mandate.id);
    }
    await m.http.post(`/v1/sandbox/mandates/${ids[20]}/approve`, {});
    const { page, problems, elsewhere } = await open(t, PHONE);
    await logIn(page, m);
    await nav(page, 'Pix Automático');
    await heading(page, 'Pix Automático');
    await page.getByText('Página 1 de 2').waitFor();
    t.is(await page.locator('table.list tbody tr').count(), 20);
    await check(t, page, 'pix-automatico', 'phone');
    await page.getByRole('button', { name: 'Próxima' }).click();
    await page.getByText('Página 2 de 2').waitFor();
    await loaded(page);
    // the pager may show page 2 before its rows arrive: wait for the oldest mandate, then count
    await page.locator('table.list tbody tr', { hasText: 'Cliente 01' }).waitFor();
    t.is(await page.locator('table.list tbody tr').count(), 1);

    await page.locator('table.list').getByRole('link').first().click();
    await heading(page, 'Autorização Pix Automático');
    await loaded(page);
    await check(t, page, 'pix-automatico-autorizacao', 'phone');
    await page.goto(`${origin}/portal#/pix-automatico/${ids[20]}`);
    await badge(summary(page), 'Aprovada').waitFor();
    await page.getByText('Nova cobrança recorrente').click();
    await check(t, page, 'pix-automatico-cobrancas', 'phone');
    await page.goto(`${origin}/portal#/pix-automatico`);
    await page.getByText('Nova autorização').click();
    await check(t, page, 'pix-automatico-nova', 'phone');
    t.deepEqual(problems, []);
    t.deepEqual(elsewhere, []);
  },
);
