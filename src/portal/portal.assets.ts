// The portal's static files: its own ES modules and stylesheet (./assets/) and the UI library it runs on, Preact with
// hooks and htm, read from their npm packages (pinned in package.json) as they ship: no build step, no CDN.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type PortalFile = { body: Buffer; type: string };
export type PortalAssets = { version: string; files: Map<string, PortalFile> };

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
  svg: 'image/svg+xml',
};
const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf('.') + 1)];

// preact/hooks imports the bare specifier "preact", which a browser resolves only through an import map (an inline
// script, which the CSP forbids): it is pointed at the file served beside it. The one edit made to a vendored file.
const BARE_PREACT = /from\s*"preact"/g;
export function pointHooksAtPreact(hooks: string): string {
  const edited = hooks.replace(BARE_PREACT, 'from"./preact.js"');
  if (edited === hooks || /from\s*"[^./]/.test(edited))
    throw new Error('preact/hooks: its import of "preact" was not found (a new version?); see portal.assets.ts');
  return edited;
}

const vendor = (resolved: string) => readFileSync(fileURLToPath(resolved), 'utf8');

// Read once at start. Every URL carries the version (a hash of all the files), so the modules' relative imports stay
// within one version and a browser may keep them for a year.
export function loadPortalAssets(): PortalAssets {
  const own = new URL('./assets/', import.meta.url);
  const files = new Map<string, PortalFile>();
  for (const name of readdirSync(own).sort())
    if (typeOf(name)) files.set(name, { body: readFileSync(new URL(name, own)), type: typeOf(name) });
  const js = TYPES.js;
  files.set('vendor/preact.js', { body: Buffer.from(vendor(import.meta.resolve('preact'))), type: js });
  files.set('vendor/hooks.js', {
    body: Buffer.from(pointHooksAtPreact(vendor(import.meta.resolve('preact/hooks')))),
    type: js,
  });
  files.set('vendor/htm.js', { body: Buffer.from(vendor(import.meta.resolve('htm'))), type: js });
  const hash = createHash('sha256');
  for (const [name, file] of files) hash.update(name).update(file.body);
  return { version: hash.digest('hex').slice(0, 12), files };
}
