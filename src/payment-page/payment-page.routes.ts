// /pay/:id: the payer's payment page, its status and its two static files.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Services } from '../platform/services.ts';
import { HttpError, NotFoundError } from '../platform/errors.ts';
import { paymentPage, paymentStatus } from './payment-page.service.ts';
import { renderErrorPage, renderPaymentPage, STATUS_TEXT, type Assets } from './payment-page.html.ts';

const NOT_FOUND = 'Cobrança não encontrada';
const TYPES = { 'pay.css': 'text/css; charset=utf-8', 'pay.js': 'text/javascript; charset=utf-8' } as const;
type AssetName = keyof typeof TYPES;

// The page's two static files, read once; their URLs carry a hash of their content, so a browser may keep them for a
// year and still gets the new ones after a deploy.
function loadAssets() {
  const files = Object.fromEntries(
    Object.keys(TYPES).map((name) => {
      const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
      return [name, { body, version: createHash('sha256').update(body).digest('hex').slice(0, 12) }];
    }),
  ) as Record<AssetName, { body: Buffer; version: string }>;
  const urls: Assets = {
    css: `/pay/assets/pay.css?v=${files['pay.css'].version}`,
    js: `/pay/assets/pay.js?v=${files['pay.js'].version}`,
  };
  return { files, urls };
}

/**
 * The hosted payment page (contract: Payment page), no credential: GET /pay/:id (HTML, pt-BR), GET /pay/:id/status
 * (JSON, polled by the page every 2 s) and /pay/assets/*. `limit` is the per-IP budget of public routes; the assets,
 * immutable, do not spend it.
 */
export function paymentPageRoutes(deps: Pick<Services, 'config' | 'clock'>, limit: RequestHandler): Router {
  const { files, urls } = loadAssets();
  const router = Router();

  router.get('/assets/:file', (req, res, next) => {
    if (!Object.hasOwn(files, req.params.file)) return next();
    const file = files[req.params.file as AssetName];
    const current = req.query.v === file.version;
    res.setHeader('cache-control', current ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    res.type(TYPES[req.params.file as AssetName]).send(file.body);
  });

  router.get('/:id/status', limit, async (req, res) => {
    const status = await paymentStatus(deps, req.em, String(req.params.id));
    if (!status) throw new NotFoundError(NOT_FOUND);
    // a second of caching lets a proxy or CDN absorb pollers; the page polls every 2 s
    res.setHeader('cache-control', 'public, max-age=1');
    res.json({ status, ...STATUS_TEXT[status] });
  });

  const page: RequestHandler = async (req, res) => {
    const found = await paymentPage(deps, req.em, String(req.params.id));
    if (!found) throw new NotFoundError(NOT_FOUND);
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('x-robots-tag', 'noindex');
    res.type('html').send(renderPaymentPage(found, urls));
  };
  router.get('/:id', limit, page);

  // An id whose %-escapes do not decode names no charge either: 404, not the router's 400. The page answers its
  // refusals (unknown charge, too many requests) as a page in Portuguese; the status, JSON (the API's error handler).
  const errors: ErrorRequestHandler = (err, req, res, next) => {
    const refusal = err instanceof URIError ? new NotFoundError(NOT_FOUND) : err;
    const isPage = !req.path.endsWith('/status') && !req.path.startsWith('/assets/');
    if (!isPage || !(refusal instanceof HttpError) || (refusal.status !== 404 && refusal.status !== 429))
      return next(refusal);
    res.status(refusal.status).setHeader('cache-control', 'no-store');
    res.type('html').send(renderErrorPage(refusal.status, urls));
  };
  router.use(errors);
  return router;
}
