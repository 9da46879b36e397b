// Brings up what a benchmark measures: a PostgreSQL (DATABASE_URL's server, or an embedded one in a temp dir),
// a fresh migrated database, and the service's processes as separate OS processes, as in production.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createLogger } from '../../src/platform/logger.ts';
import { setupDatabase } from '../../src/database.ts';
import { startEmbeddedPostgres, type EmbeddedDb } from '../../src/dev-db/embedded-pg.ts';
import { serverTempDir } from '../../src/dev-db/embedded-pg-files.ts';
import { PROCESS_ENV, PROCESS_FLAGS, type App } from '../../src/platform/runtime.ts';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

export type Database = { url: string; adminUrl: string; version: string; stop: () => Promise<void> };

export async function startDatabase(
  name = `pix_bench_${process.pid}`,
  settings?: Record<string, string>,
): Promise<Database> {
  let embedded: EmbeddedDb | undefined;
  let dir: string | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    dir = serverTempDir('pix-bench-pg-');
    embedded = await startEmbeddedPostgres({
      dir: join(dir, 'pg'),
      port: await freePort(),
      database: 'postgres',
      persistent: false,
      settings,
    });
    adminUrl = embedded.adminUrl;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const version = (await admin.query('show server_version')).rows[0].server_version as string;
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  await setupDatabase(u.toString(), createLogger('warn', 'bench'));
  return {
    url: u.toString(),
    adminUrl,
    version,
    async stop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      if (embedded) await embedded.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Proc = {
  name: string;
  child: ChildProcess;
  stop: () => Promise<void>;
  rssMb: () => number;
  privateMb: () => number;
};

const appOf = (script: string) => /^apps\/(\w+)\//.exec(script)?.[1] as App;

// Forks apps/<app>/main.ts (or any script) and waits for its "ready" message.
export async function startProc(
  name: string,
  script: string,
  env: Record<string, string>,
  extraFlags: string[] = [],
): Promise<Proc> {
  const child = fork(join(root, script), [], {
    env: {
      ...PROCESS_ENV,
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ENABLED: 'false',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-42',
      ACQUIRER_WEBHOOK_SECRET: 'bench-acquirer-secret-bench-acquirer-secret',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // as npm start and package.json's start:* scripts run them (BENCH_NODE_FLAGS overrides, to try other V8 flags)
    execArgv: process.env.BENCH_NODE_FLAGS
      ? process.env.BENCH_NODE_FLAGS.split(' ')
      : [...(PROCESS_FLAGS[appOf(script)] ?? []), ...extraFlags],
  });
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m) => m === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
  return {
    name,
    child,
    rssMb: () => rssMb(child.pid!),
    privateMb: () => privateMb(child.pid!),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// Resident memory of a process (RSS). About 60 MB of it is the Node binary's code pages (RssFile), shared by every
// Node process on the machine; privateMb is the process's own part (RssAnon).
export function rssMb(pid: number, field: 'VmRSS' | 'RssAnon' = 'VmRSS'): number {
  try {
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}
export const privateMb = (pid: number) => rssMb(pid, 'RssAnon');

// Proportional set size: shared pages split between the processes sharing them, so a group's PSS adds up to what its
// container (a dyno's cgroup) is charged, where adding RSS would count the Node binary once per process.
export function pssMb(pid: number): number {
  try {
    const kb = Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// Sends a message to a bench child process and waits for its answer.
export async function ask<T>(proc: Proc, message: string): Promise<T> {
  const reply = once(proc.child, 'message') as Promise<[T]>;
  proc.child.send(message);
  return (await reply)[0];
}
