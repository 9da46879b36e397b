// Which PostgreSQL the command-line tools (`npm run ops`, `npm run migrate`) talk to: DATABASE_URL when set (the
// release phase: DATABASE_DIRECT_URL first), else the embedded PostgreSQL of the `npm start` running in this project,
// found where npm start recorded it, never by guessing a port. One function, so every tool decides the same way.
import { resolve } from 'node:path';
import { embeddedUrl } from './embedded-pg.ts';
import { EMBEDDED_DATABASE, PROJECT_ROOT, readRecord, recordPath, runningServer } from './embedded-pg-state.ts';

// `embedded`: npm start's own database, which npm start runs as development.
export type DatabaseTarget = { url: string; embedded: boolean; description: string };

export class DatabaseTargetError extends Error {}

const EXPORT_HINT = 'or export DATABASE_URL=postgres://user:password@host:5432/database';

// The environment of a tool (ops, migrate) working on `target`: DATABASE_URL is the target, and on the embedded database
// of npm start an unset NODE_ENV means development, as it does for npm start itself (same development keys, so ops can
// open what npm start's processes sealed). Anywhere else, an unset NODE_ENV keeps production's protections.
export function toolEnv(env: NodeJS.ProcessEnv, target: DatabaseTarget): NodeJS.ProcessEnv {
  return { ...env, DATABASE_URL: target.url, ...(target.embedded && !env.NODE_ENV ? { NODE_ENV: 'development' } : {}) };
}

// host:port/database, never the user's password.
export function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

export function resolveDatabase(
  env: NodeJS.ProcessEnv,
  opts: { direct?: boolean; root?: string } = {},
): DatabaseTarget {
  const variable = opts.direct && env.DATABASE_DIRECT_URL ? 'DATABASE_DIRECT_URL' : 'DATABASE_URL';
  const url = env[variable];
  if (url) return { url, embedded: false, description: `${describeDatabase(url)} (${variable})` };

  const root = opts.root ?? PROJECT_ROOT;
  const record = readRecord(root);
  const dataDir = env.EMBEDDED_PG_DIR ? resolve(env.EMBEDDED_PG_DIR) : record?.dataDir;
  if (!dataDir)
    throw new DatabaseTargetError(
      `DATABASE_URL is not set and no \`npm start\` has run an embedded PostgreSQL in this project ` +
        `(no ${recordPath(root)}): start \`npm start\` first, ${EXPORT_HINT}`,
    );
  const server = runningServer(dataDir);
  const port = server === 'unknown' ? record?.port : server?.port;
  if (!server || port === undefined)
    throw new DatabaseTargetError(
      `DATABASE_URL is not set and the embedded PostgreSQL with data in ${dataDir} is not running: start ` +
        `\`npm start\` (with the same EMBEDDED_PG_DIR if it uses one), ${EXPORT_HINT}`,
    );
  if (env.EMBEDDED_PG_PORT && Number(env.EMBEDDED_PG_PORT) !== port)
    throw new DatabaseTargetError(
      `EMBEDDED_PG_PORT=${env.EMBEDDED_PG_PORT}, but the embedded PostgreSQL with data in ${dataDir} listens on ` +
        `port ${port}: unset EMBEDDED_PG_PORT, or export the EMBEDDED_PG_DIR of the npm start using port ` +
        `${env.EMBEDDED_PG_PORT}, ${EXPORT_HINT}`,
    );
  const embedded = embeddedUrl(port, EMBEDDED_DATABASE);
  return {
    url: embedded,
    embedded: true,
    description: `${describeDatabase(embedded)} (the embedded PostgreSQL of npm start, data in ${dataDir})`,
  };
}
