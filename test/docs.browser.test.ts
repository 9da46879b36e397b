import test from 'ava';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.ts';
import { loadOpenApiDocument } from '../src/platform/api-docs.ts';

// Debian's chromium driven by playwright-core; docs/troubleshooting.md says how to install it.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// Not loopback, so Chromium applies the whole CSP (it treats localhost as secure and never upgrades its requests);
// the host resolver maps the name to the test server on 127.0.0.1, so no traffic leaves the machine.
const HOST = 'docs.example.test';
const VIEWPORT = { width: 1280, height: 800 };
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');

// What Chromium downloads for /docs, as docs/performance.md records it ("The /docs page"): 0.87 MB here (gzip: Chromium
// offers brotli over https and to localhost only; 0.80 MB with it), 3.13 MB when it asks for no compression; before,
// 4.66 MB either way. The bounds leave room (about 1.4x and 1.25x) for a newer renderer, and fail on a return to the
// 4.3 MB classic bundle or to uncompressed files.
const MAX_COMPRESSED_BYTES = 1_200_000;
const MAX_IDENTITY_BYTES = 3_900_000;

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (a: Box, b: Box) =>
  a.x >= b.x - 0.5 &&
  a.y >= b.y - 0.5 &&
  a.x + a.width <= b.x + b.width + 0.5 &&
  a.y + a.height <= b.y + b.height + 0.5;

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

  // the first operation of the first tag, its heading whole inside the first screen: the reference, not the
  // introduction, is what the page opens on
  const heading = page.getByRole('heading', { name: firstOperationSummary(), level: 3 }).first();
  const headingBox = await heading.boundingBox();
  t.truthy(headingBox, 'the first operation is rendered');
  t.true(
    headingBox!.y >= 0 && headingBox!.y + headingBox!.height <= VIEWPORT.height,
    `the first operation's heading is at y=${headingBox?.y} (the screen is ${VIEWPORT.height} px high)`,
  );

  // the authentication box: "Required" and the auth type selector side by side or wrapped, never over each other,
  // neither clipped by their row, and the box clear of the title
  const indicator = page.getByTestId('auth-indicator').first();
  const selector = page.getByRole('button', { name: /Selected Auth Type/ }).first();
  const row = page.locator('.rounded-t-xl', { has: indicator }).first();
  const [indicatorBox, selectorBox, rowBox, titleBox] = await Promise.all(
    [indicator, selector, row, page.getByRole('heading', { level: 1 }).first()].map((l) => l.boundingBox()),
  );
  t.truthy(indicatorBox && selectorBox && rowBox && titleBox, 'the authentication box is on the first screen');
  t.false(
    overlap(indicatorBox!, selectorBox!),
    `"Required" ${JSON.stringify(indicatorBox)} under the selector ${JSON.stringify(selectorBox)}`,
  );
  t.true(inside(indicatorBox!, rowBox!), '"Required" is whole inside its row');
  t.true(inside(selectorBox!, rowBox!), 'the selector is whole inside its row');
  t.false(overlap(rowBox!, titleBox!));

  // axe-core's source evaluated in the page (DevTools evaluation is not subject to the page's CSP)
  await page.evaluate(AXE_SOURCE);
  t.deepEqual(await seriousViolations(page), [], 'no serious or critical accessibility violation on the first screen');

  // an operation opens with its request example, and is accessible too
  await createCharge.click();
  await page.getByRole('heading', { name: 'Create a PIX charge' }).waitFor({ state: 'visible' });
  await page.screenshot({ path: 'test-output/docs-charge.png' });
  // its request example is our SDK's call (then curl): Scalar's generated clients are not offered
  const example = page.locator('.scalar-card', {
    has: page.locator('.operation-path', { hasText: /^\/v1\/charges$/ }),
  });
  const sdk = example.locator('pre, code').filter({ hasText: 'pix.charges.create(' }).first();
  await sdk.waitFor({ state: 'visible' });
  const source = (await sdk.textContent()) ?? '';
  t.regex(source, /import \{ createPixClient \} from '@pix-payments\/sdk';/);
  t.regex(
    source,
    /createPixClient\(\{\s+baseUrl: 'http:\/\/docs\.example\.test:\d+',\s+token: process\.env\.PIX_TOKEN,\s+\}\)/,
  );
  // the resource helper, which generates the idempotency key and keeps it across its retries
  t.regex(source, /an x-idempotency-key is generated/);
  t.regex(source, /"amount": 1050,\s+"description": "Pedido 1"/);
  await example.getByTestId('client-picker').first().click();
  t.deepEqual(await page.getByRole('option').allTextContents(), ['SDK', 'curl']);
  await page.getByRole('option', { name: 'curl' }).click();
  const curl = example.locator('pre, code').filter({ hasText: 'curl -X POST' }).first();
  await curl.waitFor({ state: 'visible' });
  t.regex(
    (await curl.textContent()) ?? '',
    /-H "authorization: Bearer \$PIX_TOKEN"[\s\S]*-d '\{"amount":1050,"description":"Pedido 1"\}'/,
  );
  t.deepEqual(await seriousViolations(page), [], 'no serious or critical accessibility violation on an operation');

  t.deepEqual(problems, [], 'no script error and no Content-Security-Policy violation');
  t.deepEqual(elsewhere, [], 'nothing is requested from another origin (no CDN, fonts or telemetry)');
});

test('/docs downloads under the measured bound, compressed or not', async (t) => {
  if (!existsSync(CHROMIUM)) return t.fail(`no Chromium at ${CHROMIUM}`);
  const origin = `http://${HOST}:${new URL(app.baseUrl).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
  });
  t.teardown(() => browser.close());
  const measured: Record<string, number> = {};
  for (const [name, headers] of [
    ['compressed', {}],
    ['identity', { 'accept-encoding': 'identity' }],
  ] as const) {
    const context = await browser.newContext({ viewport: VIEWPORT, extraHTTPHeaders: headers });
    const page = await context.newPage();
    // bytes on the wire per response (headers and body as received, before decoding), from the DevTools protocol
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => void (bytes += e.encodedDataLength));
    await page.goto(`${origin}/docs`);
    await page.locator('a[href="#tag/charges/POST/v1/charges"]').first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    measured[name] = bytes;
    await context.close();
  }
  t.log(measured);
  t.true(measured.compressed < MAX_COMPRESSED_BYTES, `compressed: ${measured.compressed} bytes`);
  t.true(measured.identity < MAX_IDENTITY_BYTES, `uncompressed: ${measured.identity} bytes`);
  t.true(measured.compressed < measured.identity / 3, 'the files went compressed');
});

// The summary of the document's first operation under its first tag (the reference lists tags, then their
// operations, in the document's order).
function firstOperationSummary(): string {
  const doc = loadOpenApiDocument() as {
    tags: { name: string }[];
    paths: Record<string, Record<string, { tags?: string[]; summary?: string }>>;
  };
  const first = doc.tags[0].name;
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) if (op?.tags?.includes(first)) return op.summary ?? '';
  throw new Error(`no operation under ${first}`);
}

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
