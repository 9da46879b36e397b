import type { Logger } from 'pino';
import { createOrm, migrate } from './db.ts';
import { createBoss } from './queue.ts';

// Brings a database up to date: MikroORM migrations, then pg-boss' own schema and our queues. Safe to run concurrently.
export async function setupDatabase(databaseUrl: string, logger: Logger): Promise<string[]> {
  const orm = await createOrm(databaseUrl, { pool: { min: 0, max: 2 } });
  try {
    const applied = await migrate(orm);
    const boss = await createBoss(databaseUrl, logger);
    await boss.stop({ graceful: false });
    return applied;
  } finally {
    await orm.close();
  }
}
