// `npm run migrate` (and the Procfile's release phase): applies pending migrations to DATABASE_DIRECT_URL when set (a
// direct connection when DATABASE_URL is a transaction-mode pooler), else DATABASE_URL, else the embedded database of
// the `npm start` running in this project. It needs no secret. A failure is one line (the full error at
// LOG_LEVEL=debug) and exit code 1.
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { resolveDatabase, toolEnv } from '../src/dev-db/database-target.ts';
import { setupDatabase } from '../src/database.ts';

const logger = createLogger(process.env.LOG_LEVEL || 'info', 'migrate');
let database = '';
try {
  const target = resolveDatabase(process.env, { direct: true });
  database = ` of ${target.description}`;
  loadConfig(toolEnv(process.env, target), 'tool'); // a bad setting fails here
  const applied = await setupDatabase(target.url, logger);
  logger.info(
    { database: target.description, applied },
    applied.length ? 'migrations applied' : 'database already up to date',
  );
} catch (err) {
  logger.debug({ err }, 'migration failed');
  // the message only: a TLS error carries the whole certificate, a driver error its stack
  const message = err instanceof Error ? err.message : String(err);
  logger.fatal(`migration${database} failed: ${message.replace(/\s+/g, ' ').trim()}`);
  process.exit(1);
}
