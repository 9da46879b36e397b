import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig, type Config } from '../../src/platform/config.ts';
import { createLogger, type Logger } from '../../src/platform/logger.ts';
import { createOrm, type MikroORM } from '../../src/platform/db.ts';
import { createBoss, type PgBoss } from '../../src/platform/queue.ts';
import { createApp } from '../../src/app.ts';
import { createTestDatabase } from './db.ts';

export type TestApp = {
  baseUrl: string;
  databaseUrl: string;
  config: Config;
  orm: MikroORM;
  boss: PgBoss;
  close: () => Promise<void>;
};

// The real API listening on an ephemeral port, over its own freshly migrated database.
export async function startTestApp(env: Record<string, string> = {}, opts: { logger?: Logger } = {}): Promise<TestApp> {
  const databaseUrl = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: process.env.LOG_LEVEL || 'silent', ...env });
  const logger = opts.logger ?? createLogger(config.logLevel, 'test-api');
  const orm = await createOrm(databaseUrl);
  const boss = await createBoss(databaseUrl, logger);
  const server: Server = createApp({ config, orm, boss, logger }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    databaseUrl,
    config,
    orm,
    boss,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await boss.stop({ graceful: false });
      await orm.close();
    },
  };
}
