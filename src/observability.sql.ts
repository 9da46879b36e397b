// The API's probes' statements: the database answers, and pg-boss' schema is there.
import { statement } from './platform/sql.ts';

export const PGBOSS_VERSION = statement(
  'platform.pgboss_version',
  `
  select version
    from pgboss.version`,
);

export const SELECT_1 = statement('platform.select_1', 'select 1');
