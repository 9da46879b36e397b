import test from 'ava';
import { readFileSync } from 'node:fs';

// app.json (Heroku's app manifest) agrees with the Procfile and documents only variables the service reads.
const root = new URL('..', import.meta.url);
const app = JSON.parse(readFileSync(new URL('app.json', root), 'utf8'));
const procfile = readFileSync(new URL('Procfile', root), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => line.slice(0, line.indexOf(':')));
const documented = new Set(
  [...readFileSync(new URL('.env.example', root), 'utf8').matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]),
);

test('app.json runs every Procfile process but the release, with the PostgreSQL add-on', (t) => {
  t.deepEqual(Object.keys(app.formation).sort(), procfile.filter((p) => p !== 'release').sort());
  t.true(procfile.includes('release'));
  t.true(app.addons.some((a: { plan: string }) => a.plan.startsWith('heroku-postgresql')));
});

test('app.json sets production, TLS to PostgreSQL and generated secrets, and every variable it names exists', (t) => {
  t.is(app.env.NODE_ENV.value, 'production');
  t.is(app.env.PGSSLMODE.value, 'require');
  for (const name of ['JWT_SECRET', 'ACQUIRER_WEBHOOK_SECRET', 'APIPIX_WEBHOOK_TOKEN', 'METRICS_TOKEN'])
    t.is(app.env[name].generator, 'secret', name);
  for (const name of Object.keys(app.env)) t.true(documented.has(name), `${name} is not in .env.example`);
});
