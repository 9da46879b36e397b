import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { parse } from 'yaml';

const OWN_FILES = new URL('./api-docs/', import.meta.url);
const SWAGGER_UI_DIR = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));

// docs/openapi.yaml as JSON, read once: the file is the record, the route only serves it.
export function loadOpenApiDocument(): Record<string, unknown> {
  return parse(readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
}

// GET /openapi.json and the Swagger UI at /docs, unauthenticated; no inline script, so a default CSP allows it.
export function apiDocsRoutes(): Router {
  const json = JSON.stringify(loadOpenApiDocument());
  const page = readFileSync(new URL('index.html', OWN_FILES), 'utf8');
  const initializer = readFileSync(new URL('swagger-initializer.js', OWN_FILES), 'utf8');
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => void res.type('json').send(json));
  router.get(['/docs', '/docs/index.html'], (_req, res) => void res.type('html').send(page));
  // the package ships its own petstore initializer under the same name: ours wins by coming first
  router.get('/docs/swagger-initializer.js', (_req, res) => void res.type('js').send(initializer));
  router.use('/docs', express.static(SWAGGER_UI_DIR, { index: false, redirect: false }));
  return router;
}
