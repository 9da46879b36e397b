import test from 'ava';
import { readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { loadOpenApiDocument } from '../src/platform/api-docs.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';

const SCALAR_DIR = new URL('./browser/', import.meta.resolve('@scalar/api-reference'));

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('GET /openapi.json serves docs/openapi.yaml as JSON, without credentials', async (t) => {
  const res = await client(app.baseUrl).get('/openapi.json');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  t.deepEqual(res.body, loadOpenApiDocument());
});

test('GET /docs is the API reference page with no inline script, its assets served from the npm package', async (t) => {
  const http = client(app.baseUrl);
  const page = await http.get('/docs');
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const scripts = [...(page.body as string).matchAll(/<script([^>]*)>([^<]*)<\/script>/g)].map(([, attrs, body]) => ({
    src: /src="([^"]+)"/.exec(attrs)?.[1] ?? '',
    module: /type="module"/.test(attrs),
    body: body.trim(),
  }));
  t.is(scripts.length, 2);
  t.regex(scripts[0].src, /^\/docs\/scalar-[0-9a-f]{12}\/standalone\.esm\.js$/, "Scalar's ES module build");
  t.regex(scripts[1].src, /^\/docs\/reference\.js\?v=[0-9a-f]{12}$/);
  t.true(scripts.every((s) => s.module && s.body === ''));
  const scalar = scripts[0].src.replace('standalone.esm.js', '');
  // the chunks the entry imports are preloaded, from the same versioned place
  const preloads = [...(page.body as string).matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]);
  t.true(preloads.length >= 5, preloads.join(' '));
  t.true(preloads.every((href) => href.startsWith(scalar)));

  const reference = await fetch(app.baseUrl + scripts[1].src);
  t.regex(reference.headers.get('content-type') ?? '', /javascript/);
  const config = await reference.text();
  t.regex(config, /fetch\('\/openapi\.json'\)/);
  t.regex(config, /withDefaultFonts: false/, 'no fonts from a CDN');
  t.regex(config, /telemetry: false/);
  t.regex(config, /hiddenClients: true/, "only the SDK and curl samples, not Scalar's generated clients");
  const entry = readFileSync(new URL('standalone.esm.js', SCALAR_DIR));
  const chunk = preloads[0].slice(scalar.length);
  for (const [asset, type] of [
    [`${scalar}standalone.esm.js`, /javascript/],
    [`${scalar}${chunk}`, /javascript/],
    ['/docs/theme.css', /text\/css/],
  ] as const) {
    const res = await fetch(app.baseUrl + asset);
    t.is(res.status, 200, asset);
    t.regex(res.headers.get('content-type') ?? '', type, asset);
    await res.arrayBuffer();
  }
  t.is((await http.get('/docs/nope.js')).status, 404);
  t.is((await fetch(`${app.baseUrl}${scalar}standalone.esm.js.map`)).status, 404, 'no source maps');
  t.is((await fetch(`${app.baseUrl}/docs/scalar-000000000000/standalone.esm.js`)).status, 404, 'another version');
  t.is((await fetch(`${app.baseUrl}/docs/standalone.js`)).status, 404, 'the 4.3 MB classic bundle is not served');

  // compressed as the browser accepts, the same bytes once decoded; cached for good under its versioned URL
  const entryUrl = `${app.baseUrl}${scalar}standalone.esm.js`;
  const br = await raw(entryUrl, { 'accept-encoding': 'gzip, deflate, br' });
  t.is(br.headers['content-encoding'], 'br');
  t.deepEqual(brotliDecompressSync(br.body), entry);
  t.true(br.body.length < entry.length / 4, `brotli: ${br.body.length} of ${entry.length} bytes`);
  t.is(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.regex(br.headers.vary ?? '', /accept-encoding/i);
  const gz = await raw(entryUrl, { 'accept-encoding': 'gzip' });
  t.is(gz.headers['content-encoding'], 'gzip');
  t.deepEqual(gunzipSync(gz.body), entry);
  const plain = await raw(entryUrl, {});
  t.is(plain.headers['content-encoding'], undefined);
  t.deepEqual(plain.body, entry);
  t.is(Number(plain.headers['content-length']), entry.length);
});

test('the page, its own files and the document are revalidated by ETag, compressed too', async (t) => {
  for (const path of ['/openapi.json', '/docs', '/docs/theme.css']) {
    const first = await raw(app.baseUrl + path, { 'accept-encoding': 'br' });
    t.is(first.status, 200, path);
    t.is(first.headers['content-encoding'], 'br', path);
    t.is(first.headers['cache-control'], 'no-cache', path);
    const etag = first.headers.etag!;
    t.regex(etag, /^"[\w-]+-br"$/, path);
    const again = await raw(app.baseUrl + path, { 'accept-encoding': 'br', 'if-none-match': etag });
    t.is(again.status, 304, path);
    t.is(again.body.length, 0);
    // the ETag names the encoding: a gzip client's copy is not taken for the brotli one
    const gzip = await raw(app.baseUrl + path, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    t.is(gzip.status, 200, path);
  }
  const doc = await raw(`${app.baseUrl}/openapi.json`, { 'accept-encoding': 'br' });
  t.deepEqual(JSON.parse(brotliDecompressSync(doc.body).toString('utf8')), loadOpenApiDocument());
});

// node:http, not fetch: fetch decodes the body and hides what went over the wire
function raw(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
