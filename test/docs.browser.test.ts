import test from 'ava';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.ts';

// Debian's chromium driven by playwright-core; docs/troubleshooting.md says how to install it.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// Not loopback, so Chromium applies the whole CSP (it treats localhost as secure and never upgrades its requests);
// the host resolver maps the name to the test server on 127.0.0.1, so no traffic leaves the machine.
const HOST = 'docs.example.test';
const VIEWPORT = { width: 1280, height: 800 };
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('/docs over plain http at a non-loopback host opens on the endpoints, accessible, under the CSP', async (t) => {
  if (!existsSync(CHROMIUM)) {
    t.fail(
      `no Chromium at ${CHROMIUM}: install it as docs/troubleshooting.md says (apt-get install -y chromium) ` +
        'or point CHROMIUM_PATH at a Chromium binary',
    );
    return;
  }
  const origin = `http://${HOST}:${new URL(app.baseUrl).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: VIEWPORT });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => void (msg.type() === 'error' && problems.push(msg.text())));
  page.on('response', (res) => void (res.status() >= 400 && problems.push(`${res.status()} ${res.url()}`)));
  const elsewhere: string[] = [];
  page.on('request', (req) => void (new URL(req.url()).origin !== origin && elsewhere.push(req.url())));

  await page.goto(`${origin}/docs`);
  // the sidebar entry of POST /v1/charges: the reference rendered, with every tag open
  const createCharge = page.locator('a[href="#tag/charges/POST/v1/charges"]').first();
  await createCharge.waitFor({ state: 'visible', timeout: 30_000 });
  await page.getByRole('heading', { name: 'PIX Payments API', level: 1 }).waitFor({ state: 'visible' });
  t.regex(await page.title(), /PIX Payments API/);

  // the first screen, without scrolling, shows endpoints: sidebar entries (a method and a summary) inside the viewport
  const onFirstScreen: string[] = [];
  for (const entry of await page.locator('a[href*="/POST/"], a[href*="/GET/"], a[href*="/DELETE/"]').all()) {
    const box = await entry.boundingBox();
    if (box && box.y >= 0 && box.y + box.height <= VIEWPORT.height && box.x + box.width <= VIEWPORT.width)
      onFirstScreen.push((await entry.getAttribute('href')) ?? '');
  }
  t.true(onFirstScreen.length >= 8, `endpoints on the first screen: ${onFirstScreen.join(', ')}`);
  t.true(onFirstScreen.includes('#tag/charges/POST/v1/charges'), onFirstScreen.join(', '));
  mkdirSync('test-output', { recursive: true });
  await page.screenshot({ path: 'test-output/docs.png' });

  // axe-core's source evaluated in the page (DevTools evaluation is not subject to the page's CSP)
  await page.evaluate(AXE_SOURCE);
  t.deepEqual(await seriousViolations(page), [], 'no serious or critical accessibility violation on the first screen');

  // an operation opens with its request example, and is accessible too
  await createCharge.click();
  await page.getByRole('heading', { name: 'Create a PIX charge' }).waitFor({ state: 'visible' });
  await page.screenshot({ path: 'test-output/docs-charge.png' });
  t.deepEqual(await seriousViolations(page), [], 'no serious or critical accessibility violation on an operation');

  t.deepEqual(problems, [], 'no script error and no Content-Security-Policy violation');
  t.deepEqual(elsewhere, [], 'nothing is requested from another origin (no CDN, fonts or telemetry)');
});

async function seriousViolations(page: Page): Promise<string[]> {
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } };
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id} (${v.help}): ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 5)
          .join(' | ')}`,
    );
}
