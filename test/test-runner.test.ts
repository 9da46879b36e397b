// `npm test` on a machine that lacks a program some test files run (scripts/test-needs.ts): the runner installs it
// when it can, and otherwise leaves those files out, names each with the command that enables it, and says so again
// at the end; it fails for them only when asked to (TEST_REQUIRE_ALL=1, or CI). Here the runner runs for real, in its
// own process, on a PATH or a program variable that lacks the program (so it can install nothing).
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { globSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needs } from '../scripts/test-needs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

async function runner(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['scripts/test.ts', ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: process.env.TEST_ADMIN_DATABASE_URL,
      LOG_LEVEL: 'silent',
      CI: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

test('a file whose program is missing and cannot be installed is not run: named with its command, the rest runs', async (t) => {
  t.timeout(120_000);
  const missing = { PGBOUNCER_BIN: '/nonexistent/pgbouncer' };
  const run = await runner(['test/pgbouncer.test.ts', 'src/pix/text.test.ts'], missing);
  t.is(run.code, 0, run.out);
  const line =
    /NOT RUN: 1 test file\(s\).*\n {2}test\/pgbouncer\.test\.ts {2}needs pgbouncer: PGBOUNCER_BIN=\/nonexistent\/pgbouncer is no program/;
  t.regex(run.out, line);
  t.true(run.out.trimEnd().split('\n').at(-2)?.startsWith('NOT RUN: 1 test file(s)'), 'the list closes the output');
  t.regex(run.out, /✔ .*\n[\s\S]*tests? passed/, 'the other file ran');
  t.notRegex(run.out, /PgBouncer|hook failed|\bfailed\b/, 'the left-out file did not');

  const strict = await runner(['test/pgbouncer.test.ts'], { ...missing, TEST_REQUIRE_ALL: '1' });
  t.is(strict.code, 1, strict.out);
  t.regex(strict.out, line);
  t.is((await runner(['test/pgbouncer.test.ts'], { ...missing, CI: 'true' })).code, 1);
});

test('without apt-get the runner cannot install: each file is named with the apt-get command that enables it', async (t) => {
  // a PATH with none of jq, curl, apt-get or sudo
  const run = await runner(['test/docs.walkthroughs.test.ts'], { PATH: '/nonexistent' });
  t.is(run.code, 0, run.out);
  t.regex(
    run.out,
    /NOT RUN: 1 test file\(s\), for lack of programs \(npm test cannot install them: no apt-get on this machine\):\n {2}test\/docs\.walkthroughs\.test\.ts {2}needs jq, curl: `(sudo )?apt-get install -y jq curl`/,
  );
});

// Each test file's own source and the local modules it imports, transitively.
function reach(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const imports = [...text.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)].map((m) => resolve(dirname(file), m[1]));
  return [text, ...imports.map((f) => reach(f, seen))].join('\n');
}

test("the runner's table names every test file that runs one of its programs, and only those", (t) => {
  // how a file runs each program
  const runs: Record<string, RegExp> = {
    pgbouncer: /startPgBouncer\(/,
    chromium: /chromium\.launch\(/,
    openssl: /(execFileSync|execFile|spawnSync|spawn)\(\s*'openssl'/,
    // the walkthroughs (```sh doctest blocks run in bash), which pipe curl into jq; other bash scripts need neither
    jq: /^(?=[\s\S]*spawn\('bash')(?=[\s\S]*sh doctest)/,
    curl: /^(?=[\s\S]*spawn\('bash')(?=[\s\S]*sh doctest)/,
  };
  const { ava } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { ava: { files: string[] } };
  const files = globSync(ava.files, { cwd: root, exclude: ['node_modules/**'] }).sort();
  const table = needs({});
  t.deepEqual(table.map((n) => n.pkg).sort(), Object.keys(runs).sort());
  for (const need of table) {
    const listed = globSync(need.files, { cwd: root }).sort();
    const running = files.filter((f) => runs[need.pkg].test(reach(join(root, f))));
    t.true(running.length > 0, need.pkg);
    t.deepEqual(listed, running, need.pkg);
  }
  const walkthroughs = ['README.md', 'docs/integrating.md'].map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
  t.regex(walkthroughs, /```sh doctest[\s\S]*curl -s[\s\S]*\| jq/);
});
