import test from 'ava';
import fc from 'fast-check';
import { startTestApp, type TestApp } from './support/app.ts';
import { pointHooksAtPreact } from '../src/portal/portal.assets.ts';

// GET /portal and its files over HTTP (portal.browser.test.ts drives the portal itself in Chromium).
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${app.baseUrl}${path}`, { headers });

// The browser module that reads amounts, loaded as the browser loads it (plain JavaScript, no types to check).
type Format = {
  parseMoney: (s: string) => number | null;
  moneyInput: (c: number) => string;
  money: (c: number) => string;
  day: (ymd: string | null) => string;
  dayPlus: (ymd: string, n: number) => string;
  documentText: (d: string) => string;
};
const format = () => import(String(new URL('../src/portal/assets/format.js', import.meta.url))) as Promise<Format>;

test('GET /portal: one HTML page, pt-BR, under the API CSP (no inline script), its files by a versioned URL', async (t) => {
  const res = await get('/portal');
  t.is(res.status, 200);
  t.regex(String(res.headers.get('content-type')), /^text\/html/);
  t.is(res.headers.get('cache-control'), 'no-cache');
  t.is(res.headers.get('x-robots-tag'), 'noindex');
  const csp = String(res.headers.get('content-security-policy'));
  t.regex(csp, /script-src 'self'(;|$)/, 'scripts of the same origin only: no inline script, no CDN');
  t.notRegex(csp, /unsafe-eval/);
  const html = await res.text();
  t.true(html.startsWith('<!doctype html>\n<html lang="pt-BR">'));
  t.regex(html, /<meta name="portal-sandbox" content="ACQUIRER=sandbox">/, 'the sandbox says so to the page');
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  t.is(scripts.length, 1);
  t.is(scripts[0][2], '', 'no inline script');
  t.notRegex(html, /\sstyle=|<style/);
  t.notRegex(html, /https?:\/\//, 'nothing from another origin');
  const app = /src="(\/portal\/assets\/([0-9a-f]{12})\/app\.js)"/.exec(scripts[0][1]);
  t.truthy(app, scripts[0][1]);
  const [, appUrl, version] = app!;

  const js = await get(appUrl);
  t.is(js.status, 200);
  t.is(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  // every module it reaches (also by a dynamic import()) is served, each import relative (the browser resolves no
  // bare specifier without an import map), the UI library from its npm packages
  const seen = new Set<string>();
  const queue = ['app.js'];
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const r = await get(`/portal/assets/${version}/${name}`);
    t.is(r.status, 200, name);
    const body = await r.text();
    for (const [, spec] of body.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
      t.regex(spec, /^\.\.?\//, `${name} imports ${spec}`);
      queue.push(new URL(spec, `http://x/${name}`).pathname.slice(1));
    }
  }
  t.true(
    ['vendor/preact.js', 'vendor/hooks.js', 'vendor/htm.js', 'charges.js', 'webhooks.js', 'mandate-form.js'].every(
      (f) => seen.has(f),
    ),
  );
  const css = await get(`/portal/assets/${version}/portal.css`);
  t.is(css.headers.get('content-type'), 'text/css; charset=utf-8');

  // a page loaded before a deploy asks an older version: today's file, not to be kept; an unknown file: 404 JSON
  const old = await get('/portal/assets/000000000000/app.js');
  t.is(old.status, 200);
  t.is(old.headers.get('cache-control'), 'no-cache');
  const unknown = await get(`/portal/assets/${version}/nope.js`);
  t.is(unknown.status, 404);
  t.deepEqual(await unknown.json(), { code: 'route_not_found', message: 'Rota não encontrada' });
  t.is((await get(`/portal/assets/${version}/%2E%2E%2Fportal.routes.ts`)).status, 404);
});

test('preact/hooks is pointed at the preact file served beside it, and a changed import is caught at start', (t) => {
  t.is(pointHooksAtPreact('import{options as n}from"preact";n()'), 'import{options as n}from"./preact.js";n()');
  t.throws(() => pointHooksAtPreact('import{options as n}from"preact/x";'), { message: /not found/ });
  t.throws(() => pointHooksAtPreact('import{options}from"preact";import x from"other";'), { message: /not found/ });
});

test('an amount typed in reais reads back to the exact centavos (property)', async (t) => {
  const { parseMoney, moneyInput, money } = await format();
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (centavos) => {
      return parseMoney(moneyInput(centavos)) === centavos && parseMoney(money(centavos)) === centavos;
    }),
  );
  t.is(parseMoney('1.234,56'), 123_456);
  t.is(parseMoney('R$ 10,5'), 1050);
  t.is(parseMoney('10.50'), 1050);
  t.is(parseMoney('1.234'), 123_400);
  t.is(parseMoney('2.000,00'), 200_000);
  for (const bad of ['', 'abc', '10,505', '1,2,3', '-5', '1e3']) t.is(parseMoney(bad), null, bad);
  t.is(money(123_456).replace('\u00a0', ' '), 'R$ 1.234,56');
});

test('Pix Automático days and documents: calendar days shown and added without a time zone, CPF and CNPJ written', async (t) => {
  const { day, dayPlus, documentText } = await format();
  t.is(day('2027-01-05'), '05/01/2027');
  t.is(day(null), '—');
  t.is(dayPlus('2026-12-31', 1), '2027-01-01');
  t.is(dayPlus('2027-03-01', -1), '2027-02-28');
  t.is(dayPlus('2028-02-28', 1), '2028-02-29');
  t.is(dayPlus('2026-10-31', 7), '2026-11-07');
  t.is(documentText('52998224725'), '529.982.247-25');
  t.is(documentText('11222333000181'), '11.222.333/0001-81');
  t.is(documentText('123'), '123');
});
