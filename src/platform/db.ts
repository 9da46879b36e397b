// The ORM (MikroORM): its configuration, creation and migrations.
import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { fileURLToPath } from 'node:url';
import { pgConnection } from './pg-ssl.ts';
import { clientFor } from './prepared.ts';

const migrationsPath = fileURLToPath(new URL('../../db/migrations', import.meta.url));

// The ORM's configuration over the given entities (the list is the composition's: src/database.ts). `prepare`: the
// declared statements are named on its connections (prepared.ts NamingClient; canPrepare).
export function ormConfig(
  databaseUrl: string,
  entities: Options['entities'],
  overrides: Partial<Options> = {},
  prepare = false,
): Options {
  const { url, ssl } = pgConnection(databaseUrl);
  return defineConfig({
    clientUrl: url,
    driverOptions: { ssl, ...clientFor(prepare) },
    entities,
    extensions: [Migrator],
    // migration:create diffs the entities against the live database (no snapshot file to drift).
    // Plain UTC timestamps everywhere, whatever the server's timezone.
    timezone: 'Z',
    forceUtcTimezone: true,
    pool: { min: 0, max: 10 },
    migrations: {
      path: migrationsPath,
      pathTs: migrationsPath,
      glob: '!(*.d).ts',
      emit: 'ts',
      silent: true,
      snapshot: false,
    },
    // tables with no entity (rate-limiter-flexible's, the daemon's rate slots and circuit breakers): created by
    // migrations, left alone by the schema diff
    schemaGenerator: { skipTables: ['rate_limits', 'webhook_rate_slots', 'webhook_breakers'] },
    allowGlobalContext: false,
    debug: false,
    ...overrides,
  });
}

export async function createOrm(
  databaseUrl: string,
  entities: Options['entities'],
  overrides: Partial<Options> = {},
  prepare = false,
): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, entities, overrides, prepare));
}

export async function migrate(orm: MikroORM): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

export { MikroORM };
