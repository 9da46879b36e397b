// The system under test, as production runs it: one PostgreSQL (embedded, so it can be crashed and restarted on the
// same data directory) and the API, the worker and the webhook daemon as separate OS processes, each kept running by
// a supervisor the way a dyno manager restarts a dyno that died.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, ensureDatabase, type EmbeddedDb } from '../../src/dev-db/embedded-pg.ts';
import { PROCESS_ENV, PROCESS_FLAGS, type App } from '../../src/platform/runtime.ts';
import { childPids, root } from '../../bench/lib/stack.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Database = {
  url: string;
  crash: () => Promise<void>; // SIGKILL of the postmaster and every backend: a power cut, WAL recovery on restart
  restart: () => Promise<void>;
  stop: () => Promise<void>;
};

export async function startDatabase(dir: string, port: number): Promise<Database> {
  const start = () => startEmbeddedPostgres({ dir, port, database: 'postgres', persistent: true });
  let db: EmbeddedDb = await start();
  await ensureDatabase(db.adminUrl, 'chaos');
  const u = new URL(db.adminUrl);
  u.pathname = '/chaos';
  return {
    url: u.toString(),
    async crash() {
      for (const pid of [...childPids(db.pid), db.pid]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
      while (isAlive(db.pid)) await sleep(50);
    },
    async restart() {
      db = await start();
    },
    async stop() {
      await db.stop();
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export type Supervised = {
  name: App;
  kills: number;
  unexpectedExits: number;
  kill: () => Promise<void>; // SIGKILL, then the supervisor starts it again at once
  stop: () => Promise<void>;
};

// Runs apps/<name>/main.ts, restarting it whenever it exits (killed by the chaos, or dead on its own: counted).
export async function supervise(name: App, env: Record<string, string>, logDir: string): Promise<Supervised> {
  const log: WriteStream = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  let child: ChildProcess | undefined;
  let stopping = false;
  let killing = false;
  const s: Supervised = {
    name,
    kills: 0,
    unexpectedExits: 0,
    async kill() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      s.kills++;
      killing = true;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      stopping = true;
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      log.end();
    },
  };
  const spawnOnce = () =>
    new Promise<void>((resolve) => {
      const c = fork(join(root, `apps/${name}/main.ts`), [], {
        env: { ...PROCESS_ENV, ...process.env, ...env },
        execArgv: [...PROCESS_FLAGS[name]],
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      child = c;
      c.stdout!.pipe(log, { end: false });
      c.stderr!.pipe(log, { end: false });
      c.on('message', (m) => m === 'ready' && resolve());
      c.once('exit', () => {
        resolve();
        if (stopping) return;
        const killed = killing;
        killing = false;
        if (!killed) s.unexpectedExits++;
        void sleep(killed ? 0 : 250).then(async () => {
          if (!stopping) await spawnOnce(); // a dyno manager restarts it
        });
      });
    });
  await spawnOnce();
  return s;
}

// Waits until the API answers (after a start, or a PostgreSQL restart).
export async function waitForApi(base: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      if ((await fetch(`${base}/v1/webhooks/merchant/events`)).status < 500) return;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`the API at ${base} did not answer within ${timeoutMs} ms`);
}

export async function query<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}
