import pg from 'pg';
import { randomBytes } from 'node:crypto';

const adminUrl = () => {
  const url = process.env.TEST_ADMIN_DATABASE_URL;
  if (!url) throw new Error('run the tests with `npm test` (it provides the database)');
  return url;
};

// A fresh database cloned from the migrated template: each test file gets its own.
export async function createTestDatabase(): Promise<string> {
  const name = `${process.env.TEST_DATABASE_PREFIX}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${process.env.TEST_TEMPLATE_DATABASE}`);
        break;
      } catch (err) {
        // two files cloning the template at the same instant: PostgreSQL refuses one, so try again
        if (attempt > 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

// An empty database (no schema): for a test that runs the migrations itself.
export async function createEmptyTestDatabase(): Promise<string> {
  const name = `${process.env.TEST_DATABASE_PREFIX}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}
