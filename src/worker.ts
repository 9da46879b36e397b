import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from './platform/config.ts';
import type { Logger } from './platform/logger.ts';

export type WorkerDeps = { config: Config; orm: MikroORM; boss: PgBoss; logger: Logger };

// The worker process: talks to the acquirer, settles payments and runs scheduled jobs. Each domain registers its queues here.
export async function startWorker(deps: WorkerDeps): Promise<void> {
  const registrations: ((d: WorkerDeps) => Promise<void>)[] = [];
  for (const register of registrations) await register(deps);
  deps.logger.info('worker ready');
}
