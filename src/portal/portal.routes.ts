// /portal: the merchant portal's page and its static files.
import { Router } from 'express';
import { loadPortalAssets } from './portal.assets.ts';
import { renderPortalShell } from './portal.html.ts';

/**
 * The merchant portal (contract: Payment page, merchant portal): GET /portal, one HTML page whose ES modules (under
 * /portal/assets/<version>/) do everything else through the public API, same origin, with the merchant's JWT. No
 * credential here: the page is the same for everyone, and the login form is its first screen. `sandbox`: the
 * deployment's acquirer is the sandbox (the page shows the test account's buttons).
 */
export function portalRoutes({ sandbox }: { sandbox: boolean }): Router {
  const { version, files } = loadPortalAssets();
  const shell = renderPortalShell(`/portal/assets/${version}`, { sandbox });
  const router = Router();

  router.get('/', (_req, res) => {
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('x-robots-tag', 'noindex');
    res.type('html').send(shell);
  });

  // /portal/assets/<version>/<file>: the current version is immutable; another (a page loaded before a deploy)
  // gets today's files, not to be kept.
  router.get('/assets/:version/{*file}', (req, res, next) => {
    const name = (req.params.file ?? []).join('/');
    const file = files.get(name);
    if (!file) return next();
    const current = req.params.version === version;
    res.setHeader('cache-control', current ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.type(file.type).send(file.body);
  });
  return router;
}
