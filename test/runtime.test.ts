import test from 'ava';
import { readFileSync } from 'node:fs';
import { PROCESS_ENV, PROCESS_FLAGS } from '../src/platform/runtime.ts';

// package.json's start:* scripts (what the Procfile runs) launch each process as npm start and the benchmarks do, with
// `exec`: a SIGTERM sent to npm alone (docker stop, a process manager) reaches node instead of killing the shell.
test('package.json start scripts carry the same environment and V8 flags as src/platform/runtime.ts', (t) => {
  const scripts = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts as Record<
    string,
    string
  >;
  const env = Object.entries(PROCESS_ENV)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  for (const [app, flags] of Object.entries(PROCESS_FLAGS)) {
    t.is(scripts[`start:${app}`], `${env} exec node ${flags.join(' ')} apps/${app}/main.ts`);
  }
});
