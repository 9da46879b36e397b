import test, { type ExecutionContext } from 'ava';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { watchedPage } from './support/portal-page.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

// The sandbox's self-service in the portal, in Chromium (harness as portal.browser.test.ts: a host name that is not
// loopback, so the whole CSP applies), at desktop and phone widths: a merchant registered a minute ago (the portal has
// no registration form: POST /v1/auth/register, as docs/portal.md says) signs in, `Ativar conta de testes`, creates a
// charge, `Simular pagamento`, sees it paid, downloads the statement for Brazilian spreadsheets and reads it with
// `;`; the Copiar buttons of the copy-and-paste code, a webhook's secret (new and rotated) and an API key write the
// clipboard and say so. No operator command anywhere. axe on every screen.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HOST = 'portal-sandbox.example.test';
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
const OUT = 'test-output';

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

let app: TestApp;
let stopWorker: () => Promise<void>;
let browser: Browser;
let origin: string;
let receiver: Receiver;
test.before(async () => {
  app = await startTestApp();
  stopWorker = await startBackground(app, 'worker');
  receiver = await startReceiver();
  origin = `http://${HOST}:${new URL(app.baseUrl).port}`;
  if (existsSync(CHROMIUM))
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
        // the clipboard API exists in secure contexts only: this plain-http test origin counts as one
        `--unsafely-treat-insecure-origin-as-secure=${origin}`,
      ],
    });
  mkdirSync(OUT, { recursive: true });
});
test.after.always(async () => {
  await browser?.close();
  await receiver?.close();
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
  return watchedPage(t, browser, origin, viewport, { clipboard: true });
}

async function check(t: ExecutionContext, page: Page, name: string, size: string) {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } };
    return (await axe.run()).violations;
  });
  t.deepEqual(
    violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`),
    [],
    `${name} (${size}): no serious or critical accessibility violation`,
  );
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  t.true(width <= page.viewportSize()!.width, `${name} (${size}): no horizontal scroll (${width} px)`);
  await page.screenshot({ path: `${OUT}/portal-sandbox-${name}-${size}.png`, fullPage: true });
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name, exact: true }).click();
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
const clipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

// Copiar next to `scope`: the clipboard holds `value` afterwards, and "Copiado" is announced (a role=status region)
async function copies(t: ExecutionContext, page: Page, scope: ReturnType<Page['locator']>, value: string) {
  await page.evaluate('navigator.clipboard.writeText("nada")');
  await scope.getByRole('button', { name: 'Copiar', exact: true }).click();
  await scope.getByRole('status').filter({ hasText: 'Copiado' }).waitFor();
  t.is(await clipboard(page), value);
}

for (const [size, viewport] of Object.entries(SIZES))
  test.serial(
    `${size}: sign in, activate the test account, charge, simulate the payment, pt-BR statement`,
    async (t) => {
      if (!needsChromium(t)) return;
      const m = await createMerchant(app); // KYC pending, no account, no key: as registered
      const { page, problems, elsewhere } = await open(t, viewport);

      await page.goto(`${origin}/portal`);
      await page.getByLabel('E-mail').fill(m.email);
      await page.getByLabel('Senha').fill(m.password);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await heading(page, 'Início');

      // Início: Ambiente de testes, the account not ready, its button
      const sandbox = page.getByRole('region', { name: 'Ambiente de testes' });
      await sandbox.waitFor();
      const activate = sandbox.getByRole('button', { name: 'Ativar conta de testes' });
      await activate.waitFor();
      await page.getByText('Não configurada').waitFor();
      await check(t, page, 'inicio', size);
      await activate.click();
      await sandbox.getByRole('status').filter({ hasText: 'Conta de testes ativada' }).waitFor();
      await sandbox.getByText('Sua conta de testes está pronta').waitFor();
      t.is(await activate.count(), 0, 'the button is gone once the account is ready');
      await page.getByText('Configurada', { exact: true }).waitFor();
      t.like((await m.http.get('/v1/merchants/me')).body.merchant, { kycStatus: 'APPROVED', acquirerConfigured: true });
      const keys = (await m.http.get('/v1/merchants/me/pix-keys')).body.pixKeys;
      t.is(keys.length, 1);
      t.like(keys[0], { type: 'CHAVE_ALEATORIA', status: 'ACTIVE' });
      await check(t, page, 'inicio-ativada', size);

      // Cobranças: a new charge, its copy-and-paste code copied, the payment simulated, the page turns to Paga
      await nav(page, 'Cobranças');
      await heading(page, 'Cobranças');
      await page.getByText('Nova cobrança').click();
      await page.getByLabel('Valor (R$)').fill('1.234,56');
      await page.getByLabel('Descrição').fill('Pedido de teste');
      await page.getByRole('button', { name: 'Criar cobrança' }).click();
      await heading(page, 'Cobrança');
      const chargeId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
      const charge = (await m.http.get(`/v1/charges/${chargeId}`)).body.charge;
      t.is(charge.status, 'PENDING');
      await copies(t, page, page.getByRole('region', { name: 'QR Code' }), charge.qrCode);
      const simulate = page.getByRole('button', { name: 'Simular pagamento' });
      await simulate.waitFor();
      await check(t, page, 'cobranca-pendente', size);
      await simulate.click();
      await page.getByRole('status').filter({ hasText: 'Pagamento simulado enviado' }).waitFor();
      await page
        .locator('.detail .badge', { hasText: /^Paga$/ })
        .first()
        .waitFor({ timeout: 30_000 });
      t.is((await m.http.get(`/v1/charges/${chargeId}`)).body.charge.status, 'PAID');
      t.is(await simulate.count(), 0, 'no Simular pagamento on a paid charge');
      await check(t, page, 'cobranca-paga', size);

      // Extrato: the CSV for Brazilian spreadsheets, read with `;`
      await nav(page, 'Extrato');
      await heading(page, 'Extrato');
      await page.locator('table.list tbody tr').first().waitFor();
      await check(t, page, 'extrato', size);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Baixar CSV (Excel/planilha pt-BR)' }).click(),
      ]);
      t.is(download.suggestedFilename(), 'extrato-pt-BR.csv');
      const bytes = readFileSync((await download.path())!);
      t.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the byte order mark survives the download');
      const rows: Record<string, string>[] = parse(bytes, { delimiter: ';', bom: true, columns: true });
      const [line] = (await m.http.get('/v1/merchants/me/statement')).body.entries;
      t.deepEqual(rows, [
        {
          Data: rows[0]?.Data,
          Tipo: 'Cobrança recebida',
          'Valor (R$)': '1222,34', // 1234,56 less the 0.99 % fee (12,22)
          'Saldo após (R$)': '1222,34',
          Cobrança: chargeId,
          Saque: '',
          Estorno: '',
          Infração: '',
          Lançamento: line.id,
        },
      ]);
      t.regex(rows[0].Data, /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/);

      // Webhooks: the secret on creation and on rotation, copied
      await nav(page, 'Webhooks');
      await heading(page, 'Webhooks');
      await page.getByText('Novo webhook').click();
      await page.getByLabel('URL').fill(receiver.url(`/sandbox-${size}`));
      await page.getByLabel('Nome').fill('Loja');
      await page.getByRole('button', { name: 'Criar webhook' }).click();
      const created = page.getByRole('region', { name: 'Segredo de assinatura do novo webhook' });
      const secret = await created.getByLabel('Valor').inputValue();
      t.regex(secret, /^wh_/);
      await copies(t, page, created, secret);
      await check(t, page, 'webhook-segredo', size);
      await page.getByRole('button', { name: 'Já copiei' }).click();
      t.false((await page.content()).includes(secret), 'the secret is gone from the page');
      await page.getByRole('link', { name: 'Entregas e testes' }).click();
      await heading(page, 'Webhook');
      await page.getByRole('button', { name: 'Rotacionar segredo' }).click();
      const rotatedRegion = page.getByRole('region', { name: 'Novo segredo de assinatura' });
      const rotated = await rotatedRegion.getByLabel('Valor').inputValue();
      t.not(rotated, secret);
      await copies(t, page, rotatedRegion, rotated);
      await check(t, page, 'webhook-rotacionado', size);
      await page.getByRole('button', { name: 'Já copiei' }).click();

      // Chaves de API: the new key's value, copied
      await nav(page, 'Chaves de API');
      await heading(page, 'Chaves de API');
      await page.getByLabel('Nome').fill('Servidor');
      await page.getByLabel('Descrição').fill('Backend de testes');
      await page.getByRole('button', { name: 'Criar chave' }).click();
      const keyRegion = page.getByRole('region', { name: 'Sua nova chave: Servidor' });
      const value = await keyRegion.getByLabel('Valor').inputValue();
      t.regex(value, /^lk_/);
      await copies(t, page, keyRegion, value);
      await check(t, page, 'chave', size);
      await page.getByRole('button', { name: 'Já copiei' }).click();
      t.false((await page.content()).includes(value));

      t.deepEqual(problems, [], 'no script error, CSP violation or failed request');
      t.deepEqual(elsewhere, [], 'nothing from another origin');
    },
  );

test.serial(
  'without the sandbox flag in the page, no test account buttons and no sandbox module; Copiar without a clipboard',
  async (t) => {
    if (!needsChromium(t)) return;
    const m = await createMerchant(app);
    const { page, problems } = await open(t, SIZES.desktop);
    // a browser without the clipboard API (a page served over plain http elsewhere than localhost)
    await page.addInitScript('Object.defineProperty(navigator, "clipboard", { value: undefined })');
    const modules: string[] = [];
    page.on('request', (req) => modules.push(new URL(req.url()).pathname));
    // the page as a deployment with a real PSP serves it (portal.html.ts without `sandbox`)
    await page.route(`${origin}/portal`, async (route) => {
      const res = await route.fetch({ url: `${app.baseUrl}/portal` }); // the test's own resolver knows no HOST
      const body = await res.text();
      t.regex(body, /<meta name="portal-sandbox"/);
      await route.fulfill({ response: res, body: body.replace(/<meta name="portal-sandbox"[^>]*>\n/, '') });
    });
    await page.goto(`${origin}/portal`);
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Senha').fill(m.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await heading(page, 'Início');
    await page.getByText('Não configurada').waitFor();
    t.is(await page.getByText('Ambiente de testes').count(), 0);
    t.is(await page.getByRole('button', { name: 'Ativar conta de testes' }).count(), 0);
    t.false(
      modules.some((p) => p.endsWith('/sandbox.js')),
      'sandbox.js is never fetched',
    );
    t.true(
      modules.some((p) => p.endsWith('/home.js')),
      'the modules were watched',
    );

    // Copiar cannot write the clipboard: it selects the value for Ctrl+C and says so
    await nav(page, 'Chaves de API');
    await heading(page, 'Chaves de API');
    await page.getByLabel('Nome').fill('Servidor');
    await page.getByLabel('Descrição').fill('Backend');
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const keyRegion = page.getByRole('region', { name: 'Sua nova chave: Servidor' });
    const value = await keyRegion.getByLabel('Valor').inputValue();
    await page.getByRole('button', { name: 'Já copiei' }).focus(); // the field loses the focus it had on arrival
    await keyRegion.getByRole('button', { name: 'Copiar', exact: true }).click();
    await keyRegion.getByRole('status').filter({ hasText: 'Não foi possível copiar' }).waitFor();
    t.is(await page.evaluate('document.activeElement.id'), 'chave-nova');
    t.is(
      await page.evaluate(
        // the whole value is selected
        '(({ value, selectionStart, selectionEnd }) => value.slice(selectionStart, selectionEnd))(document.activeElement)',
      ),
      value,
    );
    t.deepEqual(problems, []);
  },
);
