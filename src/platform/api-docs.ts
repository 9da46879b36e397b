import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { parse } from 'yaml';

const OWN_FILES = new URL('./api-docs/', import.meta.url);
// Scalar's standalone bundle (dist/browser: the script and the chunks it loads), served from the npm package, no CDN.
const SCALAR_DIR = fileURLToPath(new URL('./browser/', import.meta.resolve('@scalar/api-reference')));

let parsed: Record<string, unknown> | undefined;

// docs/openapi.yaml as JSON, read once per process (parsing it takes a while: the route serving it and the webhook
// catalogue's schemas share one copy, which nobody modifies): the file is the record, the routes only serve it.
export function loadOpenApiDocument(): Record<string, unknown> {
  parsed ??= parse(readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
  return parsed;
}

// GET /openapi.json and the API reference at /docs, unauthenticated; no inline script, so the CSP allows it.
export function apiDocsRoutes(): Router {
  const json = JSON.stringify(loadOpenApiDocument());
  const page = readFileSync(new URL('index.html', OWN_FILES), 'utf8');
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => void res.type('json').send(json));
  router.get(['/docs', '/docs/index.html'], (_req, res) => void res.type('html').send(page));
  for (const file of ['reference.js', 'theme.css']) {
    const body = readFileSync(new URL(file, OWN_FILES), 'utf8');
    router.get(`/docs/${file}`, (_req, res) => void res.type(file.split('.')[1]).send(body));
  }
  router.use('/docs', express.static(SCALAR_DIR, { index: false, redirect: false }));
  return router;
}
