// A browser page for the portal's browser tests that records what would make the portal fail: script errors, CSP
// violations (console errors), failed responses (but those a test provokes on purpose: `expect`) and any request
// to another origin than the portal's.
import type { ExecutionContext } from 'ava';
import type { Browser } from 'playwright-core';

export async function watchedPage(
  t: ExecutionContext,
  browser: Browser,
  origin: string,
  viewport: { width: number; height: number },
  opts: { timeoutMs?: number; clipboard?: boolean } = {},
) {
  const context = await browser.newContext({ viewport, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
  t.teardown(() => context.close());
  if (opts.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(opts.timeoutMs ?? 15_000);
  const problems: string[] = [];
  const elsewhere: string[] = [];
  const expected = new Set<string>();
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(msg.text());
  });
  page.on('response', (res) => {
    const what = `${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`;
    if (res.status() >= 400 && !expected.has(what)) problems.push(what);
  });
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== origin) elsewhere.push(req.url());
  });
  return { page, problems, elsewhere, expect: (what: string) => expected.add(what) };
}
