// `npm start`: the whole service on one machine. Embedded PostgreSQL when DATABASE_URL is unset,
// migrations, then the API, the worker and the webhook daemon as separate processes (as the Procfile runs them).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { setupDatabase } from '../src/platform/setup.ts';
import { fatal } from '../src/platform/lifecycle.ts';
import { PROCESS_ENV, PROCESS_FLAGS, type App } from '../src/platform/runtime.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const APPS = ['api', 'worker', 'webhooks'] as const;

let config;
try { config = loadConfig(); } catch (err) { fatal(undefined, err); }
const logger = createLogger(config.logLevel, 'start');
const started = Date.now();

const children = new Map<string, ChildProcess>();
let database: ChildProcess | undefined;
let stopping = false;
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

// Starts a child in its own process group (Ctrl-C reaches only us, and we stop the children in order);
// the IPC channel lets it notice our death.
function spawnChild(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const execArgv = name in PROCESS_FLAGS ? [...PROCESS_FLAGS[name as App]] : [];
  const child = fork(`${root}${script}`, args, { env: { ...PROCESS_ENV, ...env }, detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    logger.error({ app: name, code, signal }, 'process exited unexpectedly: stopping the service');
    void stopAll(1);
  });
  return child;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function stopAll(code: number): Promise<never> {
  if (stopping) return new Promise(() => {});
  stopping = true;
  await Promise.all([...children.values()].map(stopChild));
  if (database) await stopChild(database); // last: the others needed it to finish their work
  logger.info('all processes stopped');
  process.exit(code);
}

const env = { ...process.env };
if (!config.databaseUrl) {
  const port = process.env.EMBEDDED_PG_PORT || '54329'; // embeddedDatabaseUrl() agrees
  const dir = process.env.EMBEDDED_PG_DIR || `${root}.data/pg`;
  database = spawnChild('postgres', 'scripts/embedded-pg.ts', [dir, port, 'pix'], env);
  const [msg] = await once(database, 'message') as [{ url: string }];
  env.DATABASE_URL = msg.url;
  logger.info({ port, dir }, 'embedded PostgreSQL started');
}
await setupDatabase(env.DATABASE_URL!, logger).catch((err: unknown) => fatal(logger, err));

for (const name of APPS) children.set(name, spawnChild(name, `apps/${name}/main.ts`, [], env));
await Promise.all([...children.values()].map((c) => once(c, 'message')));
logger.info({ ms: Date.now() - started, port: config.port }, `service ready on http://localhost:${config.port}`);
