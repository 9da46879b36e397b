// The services every process is built from, as one type modules take parts of.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';

// What every process is built from (src/deps.ts builds it); modules take the narrow parts they need. `clock` is what
// "now" (and so "today" in São Paulo) is for the rules that depend on the date: the wall clock, but a test may set it.
export type Services = { config: Config; orm: MikroORM; boss: PgBoss; logger: Logger; clock: () => Date };
