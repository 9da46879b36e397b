// `npm start`: the whole service on one machine. Embedded PostgreSQL when DATABASE_URL is unset,
// migrations, then the API, the worker and the webhook daemon as separate processes (as the Procfile runs them).
// Stopping: SIGINT (Ctrl-C), SIGTERM or SIGHUP stop the three processes (each finishes its work), then the database.
// package.json runs us with `exec`, so the SIGTERM npm forwards reaches us (a `sh -c` in between would die of it and
// leave us running). If npm dies anyway, even by SIGKILL, our parent changes and we stop the same way; if we die, the
// children see their IPC channel close and stop by themselves.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { setupDatabase } from '../src/database.ts';
import { fatal } from '../src/platform/lifecycle.ts';
import { EMBEDDED_DATABASE } from '../src/dev-db/embedded-pg-state.ts';
import { PROCESS_ENV, PROCESS_FLAGS, type App } from '../src/platform/runtime.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const APPS = ['api', 'worker', 'webhooks'] as const;
const STOP_TIMEOUT_MS = 40_000; // past the processes' own grace periods: then SIGKILL

// The embedded database is a developer's machine by definition: without NODE_ENV and DATABASE_URL, the three
// processes run as development. Anything else keeps NODE_ENV as given (unset: production's protections).
const defaulted = !process.env.NODE_ENV && !process.env.DATABASE_URL;
if (defaulted) process.env.NODE_ENV = 'development';
let config;
try {
  // the API's requirements include the worker's and the daemon's: refuse here, in one line, before starting anything
  config = loadConfig(process.env, 'api');
} catch (err) {
  fatal(undefined, err);
}
const logger = createLogger(config.logLevel, 'start');
if (defaulted) logger.info('NODE_ENV unset with the embedded database: running as development');
const started = Date.now();

const children = new Map<string, ChildProcess>();
let database: ChildProcess | undefined;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (!stopping) logger.info({ signal }, 'stopping');
    void stopAll(0);
  });
}

// Polling is the only way to learn that the parent died: no signal or channel tells us.
const parent = process.ppid;
if (parent > 1) {
  setInterval(() => {
    if (process.ppid === parent || stopping) return;
    logger.warn({ parent }, 'parent process gone: stopping');
    void stopAll(1);
  }, 500).unref();
}

// Starts a child in its own process group (Ctrl-C reaches only us, and we stop the children in order);
// the IPC channel lets it notice our death.
function spawnChild(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const execArgv = name in PROCESS_FLAGS ? [...PROCESS_FLAGS[name as App]] : [];
  const child = fork(`${root}${script}`, args, {
    env: { ...PROCESS_ENV, ...env },
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv,
  });
  // 'close' comes after the child's last IPC message (a start failure it reports)
  child.on('close', (code, signal) => {
    if (stopping) return;
    logger.error({ app: name, code, signal }, 'process exited unexpectedly: stopping the service');
    void stopAll(1);
  });
  return child;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function stopAll(code: number): Promise<never> {
  if (stopping) return new Promise(() => {});
  stopping = true;
  await Promise.all([...children.values()].map(stopChild));
  if (database) await stopChild(database); // last: the others needed it to finish their work
  if (children.size || code === 0) logger.info('all processes stopped'); // a start failure stays one line
  process.exit(code);
}

// A start failure: one line saying why, then whatever was started is stopped.
function failStart(message: string): Promise<never> {
  if (!stopping) logger.fatal(message);
  return stopAll(1);
}

const firstMessage = <T>(child: ChildProcess) =>
  new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
const whileRunning = () => (stopping ? new Promise<never>(() => {}) : undefined); // stopAll() exits the process

const env = { ...process.env };
if (!config.databaseUrl) {
  const port = process.env.EMBEDDED_PG_PORT || '54329';
  database = spawnChild('postgres', 'scripts/embedded-pg.ts', [port, EMBEDDED_DATABASE], env);
  const msg = await firstMessage<{ url: string; dir: string; relocated: boolean; note: string } | { error: string }>(
    database,
  );
  await whileRunning();
  if ('error' in msg) await failStart(`embedded PostgreSQL did not start: ${msg.error}`);
  else {
    env.DATABASE_URL = msg.url;
    if (msg.relocated) logger.warn({ dir: msg.dir }, `embedded PostgreSQL data kept in ${msg.dir} (${msg.note})`);
    logger.info({ port, dir: msg.dir }, 'embedded PostgreSQL started');
  }
}
await setupDatabase(env.DATABASE_URL!, logger).catch((err: unknown) =>
  failStart(`database setup failed: ${err instanceof Error ? err.message : String(err)}`),
);

await whileRunning();
// One machine, one METRICS_PORT: the worker takes it and the webhook daemon the next one (the API serves PORT).
const metricsPort = (name: string) =>
  env.METRICS_PORT ? { METRICS_PORT: String(Number(env.METRICS_PORT) + (name === 'webhooks' ? 1 : 0)) } : {};
for (const name of APPS)
  children.set(name, spawnChild(name, `apps/${name}/main.ts`, [], { ...env, ...metricsPort(name) }));
await Promise.all([...children.values()].map((c) => firstMessage(c)));
logger.info({ ms: Date.now() - started, port: config.port }, `service ready on http://localhost:${config.port}`);
