import test from 'ava';
import { loadOpenApiDocument } from '../src/platform/api-docs.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';

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
  const scripts = [...(page.body as string).matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
  t.deepEqual(
    scripts.map(([, attrs, body]) => ({ src: /src="([^"]+)"/.exec(attrs)?.[1], body: body.trim() })),
    [
      { src: '/docs/standalone.js', body: '' },
      { src: '/docs/reference.js', body: '' },
    ],
  );
  const reference = await fetch(`${app.baseUrl}/docs/reference.js`);
  t.regex(reference.headers.get('content-type') ?? '', /javascript/);
  const config = await reference.text();
  t.regex(config, /url: '\/openapi\.json'/);
  t.regex(config, /withDefaultFonts: false/, 'no fonts from a CDN');
  t.regex(config, /telemetry: false/);
  for (const [asset, type] of [
    ['/docs/standalone.js', /javascript/],
    ['/docs/theme.css', /text\/css/],
  ] as const) {
    const res = await fetch(app.baseUrl + asset);
    t.is(res.status, 200, asset);
    t.regex(res.headers.get('content-type') ?? '', type, asset);
    await res.arrayBuffer();
  }
  t.is((await http.get('/docs/nope.js')).status, 404);
});
