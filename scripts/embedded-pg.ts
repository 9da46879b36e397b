// Hosts the embedded PostgreSQL for `npm start` in its own process group, so a terminal Ctrl-C reaches the supervisor
// only and the database stops last, after the processes using it. It stops the server on SIGTERM/SIGINT and when the
// supervisor dies (the IPC channel closes); the server itself stops if this process dies (setpriv --pdeathsig).
// Usage: node scripts/embedded-pg.ts <port> <database>; the data directory is EMBEDDED_PG_DIR or the project's default
// (then recorded in .data/embedded-pg.json with the port, for `npm run ops` and `npm run migrate` to find it).
// Reports { url, dir, relocated, note } or { error } to the supervisor.
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, type EmbeddedDb } from '../src/dev-db/embedded-pg.ts';
import { defaultDataDir } from '../src/dev-db/embedded-pg-files.ts';
import { writeRecord } from '../src/dev-db/embedded-pg-state.ts';
import { createLogger } from '../src/platform/logger.ts';

const logger = createLogger(process.env.LOG_LEVEL || 'info', 'postgres');
const [port, database] = process.argv.slice(2);

async function start(): Promise<EmbeddedDb> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const chosen = process.env.EMBEDDED_PG_DIR ? undefined : defaultDataDir(root);
  const db = await startEmbeddedPostgres({
    dir: chosen?.dir ?? process.env.EMBEDDED_PG_DIR!,
    port: Number(port),
    database,
  });
  if (chosen) {
    const record = {
      dataDir: db.dir,
      port: Number(port),
      database,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    };
    writeRecord(record, root);
  }
  if (process.connected)
    process.send!({ url: db.url, dir: db.dir, relocated: chosen?.relocated ?? false, note: chosen?.note });
  return db;
}

const starting = start();
let stopping = false;
async function stop(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  const db = await starting.catch(() => undefined); // a signal during start stops the server once it is up
  await db?.stop();
  logger.info({ reason }, 'embedded PostgreSQL stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
if (process.send) {
  if (process.connected) process.on('disconnect', () => void stop('supervisor gone'));
  else void stop('supervisor gone');
}

starting.catch((err: unknown) => {
  const error = err instanceof Error ? err.message : String(err);
  if (process.send && process.connected) process.send({ error }, () => process.exit(1));
  else {
    console.error(`embedded PostgreSQL: ${error}`);
    process.exit(1);
  }
});
