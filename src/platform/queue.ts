import { PgBoss, fromKysely } from 'pg-boss';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

// Queue names in one place; every queue is created with notify so workers wake on LISTEN/NOTIFY, not on the next poll.
export const QUEUES = {} as Record<string, string>;

export async function createBoss(databaseUrl: string, logger: Logger, opts: { supervise?: boolean; schedule?: boolean } = {}): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    useListenNotify: true,
    supervise: opts.supervise ?? false,
    schedule: opts.schedule ?? false,
    max: 5,
  });
  boss.on('error', (err) => logger.error({ err }, 'pg-boss error'));
  await boss.start();
  return boss;
}

// Enqueue inside the caller's MikroORM transaction: the job commits or rolls back with the business rows.
export async function sendInTx(em: EntityManager, boss: PgBoss, queue: string, data: object, options: object = {}): Promise<string | null> {
  await em.flush();
  return boss.send(queue, data, { ...options, db: fromKysely(em.getKysely()) });
}

export type { PgBoss };
