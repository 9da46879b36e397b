import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../platform/config.ts';
import type { Acquirer } from './acquirer.ts';
import { createSandboxAcquirer } from './sandbox.ts';

// Picks the adapter named by ACQUIRER. The sandbox keeps its state in our database, hence orm and boss.
export function createAcquirer(config: Config, { orm, boss }: { orm: MikroORM; boss: PgBoss }): Acquirer {
  return createSandboxAcquirer({ publicBaseUrl: config.publicBaseUrl, orm, boss });
}

export type { Acquirer } from './acquirer.ts';
