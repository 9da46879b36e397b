import test, { type ExecutionContext } from 'ava';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { watchedPage } from './support/portal-page.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Received, type Receiver } from './support/receiver.ts';

// The merchant portal in Debian's Chromium (playwright-core), as docs.browser.test.ts drives /docs: over plain http at
// a host name that is not loopback, so the whole CSP applies; the resolver maps it to the test server on 127.0.0.1.
// One merchant walks through every page, doing each thing in the browser and checking it through the API and a real
// webhook receiver on 127.0.0.1.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HOST = 'portal.example.test';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
const NBSP = '\u00a0'; // Intl puts a no-break space between R$ and the amount
const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const brl = (centavos: number) => BRL.format(centavos / 100).replaceAll(NBSP, ' ');
const OUT = 'test-output';

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };
type Merchant = Awaited<ReturnType<typeof createOnboardedMerchant>>;

let app: TestApp;
let stopWorker: () => Promise<void>;
let stopDaemon: () => Promise<void>;
let browser: Browser;
let origin: string;
let receiver: Receiver;
test.before(async () => {
  app = await startTestApp();
  stopWorker = await startBackground(app, 'worker');
  stopDaemon = await startBackground(app, 'webhooks', { WEBHOOK_RETRY_SCALE: '0.001' });
  receiver = await startReceiver();
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
  await receiver?.close();
  await stopDaemon?.();
  await stopWorker?.();
  await app?.close();
});

function needsChromium(t: ExecutionContext): boolean {
  if (browser) return true;
  t.fail(
    `no Chromium at ${CHROMIUM}: install it as docs/troubleshooting.md says (apt-get install -y chromium) ` +
      'or point CHROMIUM_PATH at a Chromium binary',
  );
  return false;
}

// A page that records script errors, CSP violations, failed responses and requests to another origin.
function open(t: ExecutionContext, viewport: { width: number; height: number }) {
  return watchedPage(t, browser, origin, viewport, { timeoutMs: 10_000 });
}

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE); // not subject to the CSP
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } };
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

// Each page: accessible (axe), nothing wider than the screen, and a screenshot under test-output/.
async function check(t: ExecutionContext, page: Page, name: string, size: string) {
  t.deepEqual(await seriousViolations(page), [], `${name} (${size}): no serious or critical accessibility violation`);
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  t.true(width <= page.viewportSize()!.width, `${name} (${size}): no horizontal scroll (${width} px)`);
  await page.screenshot({ path: `${OUT}/portal-${name}-${size}.png`, fullPage: true });
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name, exact: true }).click();
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
// The portal renders in the browser after its requests: wait for what should appear (deadline for a loaded machine).
const visible = (l: Locator) =>
  l.waitFor({ state: 'visible', timeout: 30_000 }).then(
    () => true,
    () => false,
  );
const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).first().innerText()) ?? '').replaceAll(NBSP, ' ');

async function logIn(page: Page, m: Merchant) {
  await page.goto(`${origin}/portal`);
  await page.getByLabel('E-mail').fill(m.email);
  await page.getByLabel('Senha').fill(m.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await heading(page, 'Início');
}

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});
const eventOf = (r: Received) => (JSON.parse(r.body) as { event: string }).event;

test.serial(
  'a merchant does everything in the portal: charge, refund, withdrawal, statement, webhooks, API keys',
  async (t) => {
    if (!needsChromium(t)) return;
    const m = await createOnboardedMerchant(app);
    const { page, problems, elsewhere, expect } = await open(t, DESKTOP);

    // the login form; a wrong password is refused in Portuguese; the token is kept in sessionStorage, no cookie
    await page.goto(`${origin}/portal`);
    t.is(await page.getAttribute('html', 'lang'), 'pt-BR');
    await check(t, page, 'login', 'desktop');
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill('not the password');
    expect('401 POST /v1/auth/login');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('alert').getByText('Credenciais inválidas').waitFor();
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await heading(page, 'Início');
    t.is(await text(page, '[data-testid=available]'), brl(0));
    t.deepEqual(await page.context().cookies(), [], 'no cookie');
    t.regex(String(await page.evaluate('sessionStorage.getItem("portal.token")')), /^ey/);
    for (const name of ['Início', 'Cobranças', 'Saques', 'Extrato', 'Webhooks', 'Chaves de API'])
      t.true(await visible(page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name })), name);

    // Webhooks: a new one, to the receiver, for three events; its secret shown once
    await nav(page, 'Webhooks');
    await heading(page, 'Webhooks');
    await page.getByText('Novo webhook').click();
    await page.getByLabel('URL').fill(receiver.url('/portal-hook'));
    await page.getByLabel('Nome').fill('Loja: pedidos');
    for (const event of ['charge.paid', 'charge.refunded', 'withdraw.completed'])
      await page.locator(`input[id="evento-${event}"]`).check();
    await page.getByRole('button', { name: 'Criar webhook' }).click();
    const secretField = page.getByLabel('Valor');
    const secret = await secretField.inputValue();
    t.regex(secret, /^wh_[A-Za-z0-9+/]{43}=$/);
    const [webhook] = (await m.http.get('/v1/webhooks/merchant')).body.webhooks;
    t.like(webhook, { name: 'Loja: pedidos', url: receiver.url('/portal-hook'), status: 'ACTIVE' });
    t.deepEqual([...webhook.events].sort(), ['charge.paid', 'charge.refunded', 'withdraw.completed']);
    await check(t, page, 'webhooks', 'desktop');
    await page.getByRole('button', { name: 'Já copiei' }).click();
    t.false((await page.content()).includes(secret), 'the secret is gone from the page');
    t.true(await visible(page.getByText(`wh_****${secret.slice(-4)}`)), 'the list shows it masked');

    // pause and resume
    await page.getByRole('button', { name: 'Pausar' }).click();
    await page.getByRole('button', { name: 'Retomar' }).waitFor();
    t.is((await m.http.get('/v1/webhooks/merchant')).body.webhooks[0].status, 'INACTIVE');
    await page.getByRole('button', { name: 'Retomar' }).click();
    await page.getByRole('button', { name: 'Pausar' }).waitFor();
    t.is((await m.http.get('/v1/webhooks/merchant')).body.webhooks[0].status, 'ACTIVE');

    // Cobranças: a new charge of R$ 2.000,00 opens on its QR code; the payer pays; the page follows it to Paga
    await nav(page, 'Cobranças');
    await heading(page, 'Cobranças');
    await page.getByText('Nova cobrança').click();
    await page.getByLabel('Valor (R$)').fill('2.000,00');
    await page.getByLabel('Descrição').fill('Pedido 42: bolo de casamento');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    await heading(page, 'Cobrança');
    const chargeId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const charge = (await m.http.get(`/v1/charges/${chargeId}`)).body.charge;
    t.like(charge, { amount: 200_000, description: 'Pedido 42: bolo de casamento', status: 'PENDING' });
    t.true(await visible(page.getByRole('img', { name: /QR Code PIX/ })));
    t.is(await page.getByLabel('PIX copia e cola').inputValue(), charge.qrCode);
    t.is(await text(page, '.detail .big'), 'R$ 2.000,00');
    await check(t, page, 'cobranca', 'desktop');
    t.is((await m.http.post(`/v1/sandbox/charges/${chargeId}/pay`)).status, 202);
    await page
      .locator('.detail .badge', { hasText: /^Paga$/ })
      .first()
      .waitFor();
    const paid = (await m.http.get(`/v1/charges/${chargeId}`)).body.charge;
    t.is(paid.status, 'PAID');

    // Início: the balance as Intl formats it (R$ 1.234,56)
    await nav(page, 'Início');
    await heading(page, 'Início');
    const balance = (await m.http.get('/v1/merchants/me/balance')).body;
    t.is(balance.available, paid.netAmount);
    const shown = await text(page, '[data-testid=available]');
    t.is(shown, brl(balance.available));
    t.regex(shown, /^R\$ \d{1,3}(\.\d{3})+,\d{2}$/, 'thousands with a dot, centavos after a comma');
    await check(t, page, 'inicio', 'desktop');

    // a partial refund of R$ 500,00 from the charge's page; it completes, the charge stays Paga
    await nav(page, 'Cobranças');
    await page.getByRole('link', { name: 'Pedido 42: bolo de casamento' }).click();
    await heading(page, 'Cobrança');
    await page.getByLabel('Valor do reembolso (R$)').fill('500,00');
    await page.getByLabel('Motivo (opcional)').fill('Uma camada a menos');
    await page.getByRole('button', { name: 'Reembolsar' }).click();
    await page.getByText('Reembolso de R$ 500,00 solicitado.').waitFor();
    await page.locator('table.list .badge', { hasText: /^Concluído$/ }).waitFor();
    const { refunds } = (await m.http.get(`/v1/charges/${chargeId}/refunds`)).body;
    t.like(refunds, [{ amount: 50_000, reason: 'Uma camada a menos', status: 'COMPLETED' }]);
    await page.getByText('Ainda pode ser reembolsado: R$ 1.500,00').waitFor();
    t.like((await m.http.get(`/v1/charges/${chargeId}`)).body.charge, { status: 'PAID', refundedAmount: 50_000 });
    await check(t, page, 'cobranca-reembolso', 'desktop');

    // Saques: R$ 100,00 to an e-mail key; it completes
    await nav(page, 'Saques');
    await heading(page, 'Saques');
    await page.getByLabel('Valor (R$)').fill('100,00');
    await page.getByLabel('Tipo de chave').selectOption('EMAIL');
    await page.getByLabel('Chave PIX de destino').fill('fornecedor@example.com');
    await page.getByLabel('Descrição (opcional)').fill('Fornecedor de farinha');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.getByText('Saque de R$ 100,00 solicitado.').waitFor();
    await page.locator('table.list .badge', { hasText: /^Concluído$/ }).waitFor();
    const { withdrawals } = (await m.http.get('/v1/merchants/me/withdrawals')).body;
    t.like(withdrawals, [
      { amount: 10_000, pixKey: 'fornecedor@example.com', pixKeyType: 'EMAIL', status: 'COMPLETED' },
    ]);
    await check(t, page, 'saques', 'desktop');

    // Extrato: the charge, the refund and the withdrawal, newest first, signed
    await nav(page, 'Extrato');
    await heading(page, 'Extrato');
    await page.locator('table.list').waitFor();
    const statement = (await m.http.get('/v1/merchants/me/statement')).body;
    const rows = page.locator('table.list tbody tr');
    t.is(await rows.count(), statement.entries.length);
    const types = (await page.locator('table.list tbody td[data-label="Tipo"]').allInnerTexts()).map((s) => s.trim());
    t.deepEqual(types.slice(0, 3), ['Saque', 'Reembolso', 'Cobrança recebida']);
    t.is(await text(page, 'table.list tbody td[data-label="Valor"]'), `-${brl(10_000)}`);
    await check(t, page, 'extrato', 'desktop');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Baixar CSV', exact: true }).click(),
    ]);
    t.is(download.suggestedFilename(), 'extrato.csv');
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    t.regex(csv[0], /^id,createdAt,type,amount,/);
    t.is(csv.length, statement.entries.length + 1, 'a header and every line');

    // Webhooks: the deliveries of that webhook; resend one, send a test, rotate the secret
    await nav(page, 'Webhooks');
    await page.getByRole('link', { name: 'Entregas e testes' }).click();
    await heading(page, 'Webhook');
    const before = await receiver.waitFor(3);
    t.deepEqual(before.map(eventOf).sort(), ['charge.paid', 'charge.refunded', 'withdraw.completed']);
    const paidDelivery = before.find((r) => eventOf(r) === 'charge.paid')!;
    t.truthy(new StandardWebhook(secret.slice(3)).verify(paidDelivery.body, headersOf(paidDelivery)));
    await check(t, page, 'webhook-entregas', 'desktop');

    const paidRow = page.locator('table.list tbody tr', { hasText: 'charge.paid' });
    await paidRow.getByRole('button', { name: 'Reenviar' }).click();
    await paidRow.getByText('Reenviada').waitFor();
    const [resent] = (await receiver.waitFor(4)).slice(3);
    t.is(eventOf(resent), 'charge.paid');
    t.is(resent.headers['webhook-id'], paidDelivery.headers['webhook-id'], 'the same delivery, once more');
    t.truthy(new StandardWebhook(secret.slice(3)).verify(resent.body, headersOf(resent)));

    await page.getByLabel('Evento', { exact: true }).first().selectOption('withdraw.failed');
    await page.getByRole('button', { name: 'Enviar teste' }).click();
    await page.getByText('Evento de teste withdraw.failed enviado.').waitFor();
    const [tested] = (await receiver.waitFor(5)).slice(4);
    t.is(eventOf(tested), 'withdraw.failed');
    await page.locator('table.list tbody tr', { hasText: 'withdraw.failed' }).waitFor();

    await page.getByRole('button', { name: 'Rotacionar segredo' }).click();
    const rotated = await page.getByLabel('Valor').inputValue();
    t.regex(rotated, /^wh_[A-Za-z0-9+/]{43}=$/);
    t.not(rotated, secret);
    await check(t, page, 'webhook-segredo', 'desktop');
    await page.getByRole('button', { name: 'Já copiei' }).click();
    // the next delivery is signed with both: receivers verify with either secret during the overlap
    await page.getByRole('button', { name: 'Enviar teste' }).click();
    const [afterRotation] = (await receiver.waitFor(6)).slice(5);
    t.truthy(new StandardWebhook(rotated.slice(3)).verify(afterRotation.body, headersOf(afterRotation)));
    t.truthy(new StandardWebhook(secret.slice(3)).verify(afterRotation.body, headersOf(afterRotation)));

    // Chaves de API: a new key, its lk_ value shown once, and it works
    await nav(page, 'Chaves de API');
    await heading(page, 'Chaves de API');
    await page.getByLabel('Nome').fill('Servidor da loja');
    await page.getByLabel('Descrição').fill('Backend que cria as cobranças');
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const value = await page.getByLabel('Valor').inputValue();
    t.regex(value, /^lk_[A-Za-z0-9_-]{32,}$/);
    const withKey = await fetch(`${app.baseUrl}/v1/charges`, { headers: { authorization: `Bearer ${value}` } });
    t.is(withKey.status, 200, 'the key works');
    await check(t, page, 'chaves', 'desktop');
    await page.getByRole('button', { name: 'Já copiei' }).click();
    t.false((await page.content()).includes(value), 'shown once: gone from the page');
    await page.reload();
    await heading(page, 'Chaves de API');
    await page.getByText('Servidor da loja').waitFor();
    t.false((await page.content()).includes(value), 'and not shown again');

    // a webhook deleted
    await nav(page, 'Webhooks');
    await page.getByRole('button', { name: 'Excluir' }).click();
    await page.getByRole('button', { name: 'Confirmar exclusão' }).click();
    await page.getByText('Nenhum webhook ainda.').waitFor();
    t.deepEqual((await m.http.get('/v1/webhooks/merchant')).body.webhooks, []);

    // Sair: back to the login form, the token gone
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    t.is(await page.evaluate('sessionStorage.getItem("portal.token")'), null);

    t.deepEqual(problems, [], 'no script error, no CSP violation, no failed request');
    t.deepEqual(elsewhere, [], 'nothing requested from another origin');
  },
);

test.serial('on a phone (390x844) every page reads without horizontal scroll and is accessible', async (t) => {
  if (!needsChromium(t)) return;
  const m = await createOnboardedMerchant(app);
  const created = await m.http.post('/v1/charges', { amount: 123_456, description: 'Encomenda de doces' });
  const chargeId = created.body.charge.id;
  await m.http.post(`/v1/sandbox/charges/${chargeId}/pay`);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${chargeId}`)).body.charge.status === 'PAID');
  await m.http.post('/v1/webhooks/merchant', { url: receiver.url('/phone'), name: 'Pedidos', events: ['charge.paid'] });
  const { page, problems, elsewhere } = await open(t, PHONE);
  const bytes: Promise<number>[] = [];
  page.on(
    'requestfinished',
    // a poll can finish while the page closes: it cannot be sized then (0), rather than an unhandled rejection
    (req) =>
      void bytes.push(
        req.sizes().then(
          (s) => s.responseHeadersSize + s.responseBodySize,
          () => 0,
        ),
      ),
  );
  await logIn(page, m);
  await page.locator('[data-testid=available]').waitFor();
  const total = (await Promise.all(bytes)).reduce((a, b) => a + b, 0);
  t.log(
    `phone: login and Início in ${bytes.length} responses, ${total} bytes (the page, its modules, Preact, the API)`,
  );
  t.true(total < 150 * 1024, `${total} bytes`);
  await check(t, page, 'inicio', 'phone');
  for (const [link, title, name] of [
    ['Cobranças', 'Cobranças', 'cobrancas'],
    ['Saques', 'Saques', 'saques'],
    ['Extrato', 'Extrato', 'extrato'],
    ['Webhooks', 'Webhooks', 'webhooks'],
    ['Chaves de API', 'Chaves de API', 'chaves'],
  ]) {
    await nav(page, link);
    await heading(page, title);
    await page.getByText('Carregando…').waitFor({ state: 'detached' });
    await check(t, page, name, 'phone');
  }
  await nav(page, 'Cobranças');
  await page.getByRole('link', { name: 'Encomenda de doces' }).click();
  await heading(page, 'Cobrança');
  await page.getByRole('button', { name: 'Reembolsar' }).waitFor();
  await check(t, page, 'cobranca', 'phone');
  t.deepEqual(problems, []);
  t.deepEqual(elsewhere, []);
});
