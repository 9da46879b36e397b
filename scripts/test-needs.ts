// What the test suite needs from the machine besides npm: a few Debian packages whose programs some test files run.
// `npm test` (scripts/test.ts) installs the missing ones with apt-get when it can (as root, or with passwordless
// sudo), and otherwise leaves out the files that need them, each named at the end with the command that enables it.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, globSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join, matchesGlob, relative, resolve } from 'node:path';

type Need = {
  pkg: string; // the Debian package
  program: string; // its program the tests run: a path, or a name looked up on the PATH
  override?: string; // the variable that points the tests at another program, when set
  files: string[]; // globs of the test files that run it
};

export function needs(env: NodeJS.ProcessEnv = process.env): Need[] {
  const pgbouncer = env.PGBOUNCER_BIN ? { override: 'PGBOUNCER_BIN' } : {};
  const chromium = env.CHROMIUM_PATH ? { override: 'CHROMIUM_PATH' } : {};
  return [
    {
      pkg: 'pgbouncer',
      program: env.PGBOUNCER_BIN || '/usr/sbin/pgbouncer',
      ...pgbouncer,
      files: ['test/pgbouncer.test.ts'],
    },
    {
      pkg: 'chromium',
      program: env.CHROMIUM_PATH || '/usr/bin/chromium',
      ...chromium,
      files: ['test/*.browser.test.ts'],
    },
    // the walkthroughs of README.md and docs/integrating.md, run in bash as a reader runs them
    { pkg: 'jq', program: 'jq', files: ['test/docs.walkthroughs.test.ts'] },
    { pkg: 'curl', program: 'curl', files: ['test/docs.walkthroughs.test.ts'] },
    // certificates: PostgreSQL over TLS, the PSP's mTLS (test/support/apipix/test-certs.ts)
    {
      pkg: 'openssl',
      program: 'openssl',
      files: [
        'src/acquirer/apipix/client*.test.ts',
        'src/acquirer/apipix/rec.test.ts',
        'test/apipix.*.test.ts',
        'test/boot.test.ts',
        'test/logs.redaction.test.ts',
        'test/migrate.test.ts',
        'test/notifications.input.test.ts',
        'test/pg-tls.test.ts',
      ],
    },
  ];
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (program.includes('/')) return executable(program);
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && executable(join(dir, program)));
}

// AVA's arguments that select files (globs, directories, files with `:lines`; `!` excludes), not its options.
const WITH_VALUE = new Set(['--match', '-m', '--timeout', '-T', '--concurrency', '-c', '--node-arguments', '--config']);
function patternsOf(args: readonly string[]): string[] {
  const patterns: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (WITH_VALUE.has(args[i])) i++;
    else if (!args[i].startsWith('-')) patterns.push(args[i]);
  }
  return patterns;
}

function matches(file: string, pattern: string, root: string): boolean {
  const p = pattern.replace(/:[\d,-]+$/, '');
  const rel = relative(root, resolve(p)).replace(/\/$/, '');
  return file === rel || file.startsWith(`${rel}/`) || matchesGlob(file, rel);
}

// The test files AVA runs for these arguments (the configuration's `files`, narrowed by the patterns given).
function selectedFiles(args: readonly string[], root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { ava: { files: string[] } };
  const patterns = patternsOf(args);
  const include = patterns.filter((p) => !p.startsWith('!'));
  const exclude = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  return globSync(pkg.ava.files, { cwd: root, exclude: ['node_modules/**'] })
    .filter((f) => include.length === 0 || include.some((p) => matches(f, p, root)))
    .filter((f) => !exclude.some((p) => matches(f, p, root)))
    .sort();
}

export type Plan = {
  root: string;
  selected: string[]; // every test file of the run
  missing: { need: Need; files: string[] }[]; // programs missing, with the selected files that run them
};

export function plan(args: readonly string[], env: NodeJS.ProcessEnv = process.env, root = process.cwd()): Plan {
  const selected = selectedFiles(args, root);
  const missing = needs(env)
    .filter((need) => !onPath(need.program, env))
    .map((need) => ({ need, files: globSync(need.files, { cwd: root }).filter((f) => selected.includes(f)) }))
    .filter(({ files }) => files.length > 0);
  return { root, selected, missing };
}

// How apt-get can run here: as root, through passwordless sudo, or not at all (and why).
function aptRunner(): { prefix: string[] } | { why: string } {
  if (!onPath('apt-get')) return { why: 'no apt-get on this machine' };
  if (process.getuid?.() === 0) return { prefix: [] };
  if (!onPath('sudo')) return { why: 'not root, and no sudo' };
  if (spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0)
    return { why: 'not root, and sudo asks for a password' };
  return { prefix: ['sudo', '-n'] };
}

// apt-get in one shell: the package lists refreshed first when a package has no candidate (a fresh image has none)
// or when the install fails (stale lists), never interactive, and no service started meanwhile: Debian's pgbouncer
// starts its own on port 6432 otherwise (policy-rc.d answers 101, "not now", to its maintainer scripts; an existing
// policy-rc.d is left as it is). The tests start their own PgBouncer.
const APT_SCRIPT = `
set -e
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\\n# written by npm test (pix-payments) while apt-get installs: no service starts\\nexit 101\\n' > "$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
  trap 'rm -f "$policy"; exit 130' INT TERM
fi
apt() { apt-get -q -y -o DPkg::Lock::Timeout=300 "$@"; }
update=$1; shift
if [ "$update" = update ]; then apt update; fi
apt install "$@" || { apt update && apt install "$@"; }
`;

function hasCandidates(pkgs: string[]): boolean {
  const out = spawnSync('apt-cache', ['policy', ...pkgs], { encoding: 'utf8' }).stdout ?? '';
  const candidates = [...out.matchAll(/^\s+Candidate: (.*)$/gm)].map((m) => m[1]);
  return candidates.length === pkgs.length && candidates.every((c) => c !== '(none)');
}

// Installs the packages with apt-get when this machine lets it; says why not otherwise.
export function install(pkgs: string[], log: (line: string) => void): { ok: true } | { ok: false; why: string } {
  const runner = aptRunner();
  if ('why' in runner) return { ok: false, why: runner.why };
  const update = hasCandidates(pkgs) ? 'no-update' : 'update';
  log(`npm test: installing ${pkgs.join(' ')} with apt-get (the tests that need them run next)…`);
  const started = Date.now();
  const [command, ...args] = [...runner.prefix, 'sh', '-c', APT_SCRIPT, 'sh', update, ...pkgs];
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) {
    log(`${run.stdout ?? ''}${run.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n'));
    return { ok: false, why: `apt-get failed (exit ${run.status ?? run.signal}), its last lines above` };
  }
  log(`npm test: installed ${pkgs.join(' ')} in ${Math.round((Date.now() - started) / 1000)} s`);
  return { ok: true };
}

// What could not run, for the end of the output: each file with what it lacks and the one command that enables it.
export function notRunReport(missing: Plan['missing'], why: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  const byFile = new Map<string, Need[]>();
  for (const { need, files } of missing) for (const f of files) byFile.set(f, [...(byFile.get(f) ?? []), need]);
  const remedy = (lacking: Need[]) => {
    const apt = lacking.filter((n) => !n.override).map((n) => n.pkg);
    return [
      ...(apt.length ? [`\`${sudo}apt-get install -y ${apt.join(' ')}\``] : []),
      ...lacking
        .filter((n) => n.override)
        .map((n) => `${n.override}=${env[n.override!]} is no program: point it at ${n.pkg}, or unset it`),
    ].join('; ');
  };
  const width = Math.max(...[...byFile.keys()].map((f) => f.length));
  return [
    `NOT RUN: ${byFile.size} test file(s), for lack of programs (${why}):`,
    ...[...byFile].map(
      ([f, lacking]) => `  ${f.padEnd(width)}  needs ${lacking.map((n) => n.pkg).join(', ')}: ${remedy(lacking)}`,
    ),
    ...(byFile.size > 1 ? [`  all of them: ${remedy(missing.map((m) => m.need))}`] : []),
  ];
}

// AVA's arguments without these files. AVA runs a file named as a pattern, and every file under a directory named,
// whatever the `!` patterns say: such a file is dropped, such a directory becomes a glob (which they narrow).
export function excluding(args: readonly string[], files: readonly string[], root: string): string[] {
  if (files.length === 0) return [...args];
  const out: string[] = [];
  let positive = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (WITH_VALUE.has(arg)) out.push(arg, args[++i]);
    else if (arg.startsWith('-') || arg.startsWith('!')) out.push(arg);
    else {
      const rel = relative(root, resolve(arg.replace(/:[\d,-]+$/, ''))).replace(/\/$/, '');
      if (files.includes(rel)) continue;
      positive = true;
      out.push(existsSync(rel) && statSync(rel).isDirectory() ? `${rel}/**` : arg);
    }
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { ava: { files: string[] } };
  return [...out, ...(positive ? [] : pkg.ava.files), ...files.map((f) => `!${f}`)];
}
