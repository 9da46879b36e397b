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

test('GET /docs is the Swagger UI page with no inline script, its assets served from swagger-ui-dist', async (t) => {
  const http = client(app.baseUrl);
  const page = await http.get('/docs');
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const scripts = [...(page.body as string).matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
  t.deepEqual(
    scripts.map(([, attrs, body]) => ({ src: /src="([^"]+)"/.exec(attrs)?.[1], body: body.trim() })),
    [
      { src: '/docs/swagger-ui-bundle.js', body: '' },
      { src: '/docs/swagger-initializer.js', body: '' },
    ],
  );
  const initializer = await fetch(`${app.baseUrl}/docs/swagger-initializer.js`);
  t.regex(await initializer.text(), /url: '\/openapi\.json'/, 'ours, not the petstore one the package ships');
  for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']) {
    const res = await fetch(app.baseUrl + asset);
    t.is(res.status, 200, asset);
    await res.arrayBuffer();
  }
  t.is((await http.get('/docs/nope.js')).status, 404);
});
