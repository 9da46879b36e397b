// `npm test` runs this after the type-check and the linter: it installs the programs its test files run when they
// are missing (scripts/test-needs.ts), provides a PostgreSQL (DATABASE_URL when set, else an embedded one in a
// temporary directory), builds a migrated template database once, then runs AVA. Each test file clones the template
// (CREATE DATABASE ... TEMPLATE), so parallel files never see each other's rows.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger } from '../src/platform/logger.ts';
import { setupDatabase } from '../src/database.ts';
import { startEmbeddedPostgres, type EmbeddedDb } from '../src/dev-db/embedded-pg.ts';
import { serverTempDir } from '../src/dev-db/embedded-pg-files.ts';
import { excluding, install, notRunReport, plan } from './test-needs.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

// The programs the selected test files run: installed when missing and this machine lets us (root or passwordless
// sudo, apt-get; never with TEST_NO_INSTALL=1); otherwise their files are left out and named at the end, which fails
// the run only with TEST_REQUIRE_ALL=1 or in CI (.ci/run sets it).
const args = process.argv.slice(2);
let { selected, missing } = plan(args);
let why = '';
const installable = [...new Set(missing.filter(({ need }) => !need.override).map(({ need }) => need.pkg))];
if (installable.length) {
  const installed =
    process.env.TEST_NO_INSTALL === '1' ? { ok: false, why: 'TEST_NO_INSTALL=1' } : install(installable, console.log);
  why = installed.ok ? 'still missing after apt-get install' : `npm test cannot install them: ${installed.why}`;
  ({ selected, missing } = plan(args));
}
if (missing.some(({ need }) => need.override)) why ||= 'a program variable points nowhere';
const notRun = [...new Set(missing.flatMap(({ files }) => files))];
const report = notRun.length ? notRunReport(missing, why) : [];
const strict = process.env.TEST_REQUIRE_ALL === '1' || !['', '0', 'false', undefined].includes(process.env.CI);
function finish(code: number): never {
  if (report.length) {
    console.log(`\n${report.join('\n')}`);
    if (strict) console.log('Failing the run for them: TEST_REQUIRE_ALL=1 or CI is set.');
  }
  process.exit(code || (report.length && strict ? 1 : 0));
}
if (selected.length > 0 && selected.every((f) => notRun.includes(f))) finish(0);
if (report.length) console.log(`${report.join('\n')}\n(the rest runs; this list is repeated at the end)\n`);

const logger = createLogger(process.env.LOG_LEVEL || 'warn', 'test');
let embedded: EmbeddedDb | undefined;
let dataDir: string | undefined;
let adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  try {
    dataDir = serverTempDir('pix-test-pg-'); // as root, owned by the user the server runs as
    // the free port we picked can be taken before the server binds it (other test runs on the machine): try again
    for (let attempt = 1; !embedded; attempt++) {
      try {
        embedded = await startEmbeddedPostgres({
          dir: join(dataDir, 'pg'),
          port: await freePort(),
          database: 'postgres',
          persistent: false,
        });
      } catch (err) {
        if (attempt >= 5 || !/Address already in use/.test((err as Error).message)) throw err;
      }
    }
  } catch (err) {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    console.error(`npm test: no embedded PostgreSQL: ${(err as Error).message}`);
    process.exit(1);
  }
  adminUrl = embedded.adminUrl;
}

const prefix = `pix_test_${process.pid}`;
const template = `${prefix}_template`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`drop database if exists ${template}`);
await admin.query(`create database ${template}`);
await setupDatabase(withDatabase(adminUrl, template), logger);

const code = await new Promise<number>((resolve) => {
  const ava = spawn(
    process.execPath,
    ['node_modules/ava/entrypoints/cli.js', ...excluding(args, notRun, process.cwd())],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        NODE_ENV: 'test',
        TEST_ADMIN_DATABASE_URL: adminUrl,
        TEST_TEMPLATE_DATABASE: template,
        TEST_DATABASE_PREFIX: prefix,
      },
    },
  );
  ava.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  // Ctrl-C or SIGTERM: AVA stops, then the databases and the server go as below
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => ava.kill(signal));
});

// Leave the server as we found it.
const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [
  `${prefix}%`,
]);
for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
await admin.end();
if (embedded) await embedded.stop();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
finish(code);
