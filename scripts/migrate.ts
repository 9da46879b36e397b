// `npm run migrate` (and the Procfile's release phase): applies pending migrations to DATABASE_URL. It needs no secret.
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { fatal } from '../src/platform/lifecycle.ts';
import { setupDatabase } from '../src/database.ts';

let config;
try {
  config = loadConfig(process.env, 'tool');
} catch (err) {
  fatal(undefined, err);
}
const logger = createLogger(config.logLevel, 'migrate');
if (!config.databaseUrl) {
  console.error('DATABASE_URL is not set (npm start sets it for the embedded database)');
  process.exit(1);
}
const applied = await setupDatabase(config.databaseUrl, logger);
logger.info({ applied }, applied.length ? 'migrations applied' : 'database already up to date');
