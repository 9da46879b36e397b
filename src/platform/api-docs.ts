// /docs: the API reference page (Scalar) over docs/openapi.yaml.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { parse } from 'yaml';
import { assetHandler } from './api-docs-assets.ts';

const OWN_FILES = new URL('./api-docs/', import.meta.url);
// Scalar's standalone bundle, its ES module build: the entry and the chunks it imports, loaded as the page needs them
// (the classic standalone.js is all of it, 4.3 MB). Served from the npm package, no CDN.
const SCALAR_DIR = new URL('./browser/', import.meta.resolve('@scalar/api-reference'));
const SCALAR_ENTRY = 'standalone.esm.js';

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

const hash = (data: string | Buffer) => createHash('sha256').update(data).digest('hex').slice(0, 12);

// GET /openapi.json and the API reference at /docs, unauthenticated; no inline script, so the CSP allows it.
// Scalar's files live under /docs/scalar-<hash of its entry>/: a new version is a new URL, so browsers keep them for a
// year without asking again; the page, its own script and style and the document are revalidated (ETag) every time.
// Everything is sent brotli- or gzip-compressed when the browser accepts it (compressed once, on first request).
export function apiDocsRoutes(): Router {
  const entry = readFileSync(new URL(SCALAR_ENTRY, SCALAR_DIR));
  const scalarBase = `/docs/scalar-${hash(entry)}/`;
  const own = (file: string) => readFileSync(new URL(file, OWN_FILES));
  const versioned = (file: string) => `/docs/${file}?v=${hash(own(file))}`;
  // the chunks the entry imports statically, announced up front instead of discovered once the entry has arrived
  const chunks = new Set([...entry.toString('latin1').matchAll(/from"\.\/(chunks\/[\w.-]+\.js)"/g)].map((m) => m[1]));
  const preloads = [...chunks]
    .map((chunk) => `<link rel="modulepreload" href="${scalarBase}${chunk}" />`)
    .join('\n    ');
  const page = own('index.html')
    .toString('utf8')
    .replace('{{preloads}}', preloads)
    .replaceAll('{{scalar}}', `${scalarBase}${SCALAR_ENTRY}`)
    .replace('{{reference.js}}', versioned('reference.js'))
    .replace('{{theme.css}}', versioned('theme.css'));

  const router = express.Router();
  router.get(
    '/openapi.json',
    assetHandler('json', () => JSON.stringify(loadOpenApiDocument())),
  );
  router.get(
    ['/docs', '/docs/index.html'],
    assetHandler('html', () => page),
  );
  for (const file of ['reference.js', 'theme.css'])
    router.get(
      `/docs/${file}`,
      assetHandler(extname(file).slice(1), () => own(file)),
    );
  // only the bundle's scripts (no source maps): a file of the package read on its first request, then kept
  router.get(`${scalarBase}:file`, scalarFile(SCALAR_DIR));
  router.get(`${scalarBase}chunks/:file`, scalarFile(new URL('chunks/', SCALAR_DIR)));
  return router;
}

function scalarFile(dir: URL): express.RequestHandler {
  const handlers = new Map<string, express.RequestHandler>();
  return (req, res, next) => {
    const file = req.params.file as string;
    if (!/^[\w.-]+\.js$/.test(file)) return next();
    let handler = handlers.get(file);
    if (!handler) {
      let body: Buffer;
      try {
        body = readFileSync(fileURLToPath(new URL(file, dir)));
      } catch {
        return next(); // not in the package: 404
      }
      handler = assetHandler('js', () => body, { immutable: true });
      handlers.set(file, handler);
    }
    handler(req, res, next);
  };
}
