import test from 'ava';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import helmet from 'helmet';
import { chromium } from 'playwright-core';
import { createApp } from '../src/app.ts';
import { startTestApp, type TestApp } from './support/app.ts';

// Debian's chromium driven by playwright-core; see the README section "API documentation" for installing it.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SCREENSHOT = 'test-output/docs.png';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('/docs renders the operations in headless Chromium under helmet default CSP', async (t) => {
  if (!existsSync(CHROMIUM)) {
    t.fail(
      `no Chromium at ${CHROMIUM}: install it as README.md says ("API documentation": apt-get install -y chromium) ` +
        'or point CHROMIUM_PATH at a Chromium binary',
    );
    return;
  }
  // the app behind helmet's defaults, as production will run it: no inline script may be needed
  const server = express().use(helmet()).use(createApp(app.deps)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => void server.close());
  const { port } = server.address() as AddressInfo;

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => void (msg.type() === 'error' && problems.push(msg.text())));

  await page.goto(`http://127.0.0.1:${port}/docs`);
  const operation = page.locator('.opblock-post', {
    has: page.locator('.opblock-summary-path[data-path="/v1/charges"]'),
  });
  await operation.waitFor({ state: 'visible', timeout: 30_000 });
  t.true(await operation.isVisible());
  t.is((await operation.locator('.opblock-summary-method').textContent())?.trim(), 'POST');
  t.regex((await page.locator('.info .title').textContent()) ?? '', /PIX Payments API/);

  await operation.scrollIntoViewIfNeeded();
  mkdirSync('test-output', { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: false });
  t.true(existsSync(SCREENSHOT));
  t.deepEqual(problems, [], 'no script error and no Content-Security-Policy violation');
});
