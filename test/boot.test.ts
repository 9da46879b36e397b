// Each Procfile process as the platform runs it (`npm run <script>`), with production configuration: the release
// phase migrates and exits 0; web, worker and webhooks start, say they are ready, and stop on SIGTERM within 10 s.
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './support/db.ts';
import { freePort } from './support/procs.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
let certs: TestCerts;
let stub: ApiPixStub;
let env: NodeJS.ProcessEnv;
const METRICS_TOKEN = 'm'.repeat(48);

test.before(async () => {
  certs = createTestCerts();
  stub = await startApiPixStub({ certs });
  env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    DATABASE_URL: await createTestDatabase(),
    JWT_SECRET: 'j'.repeat(48),
    ACQUIRER_WEBHOOK_SECRET: 'a'.repeat(48),
    SECRETS_KEYS: `k1:${Buffer.alloc(32, 5).toString('base64')}`,
    METRICS_TOKEN: METRICS_TOKEN,
    PUBLIC_BASE_URL: 'https://pix.example.com',
    LOG_LEVEL: 'info',
    ...apiPixEnv(stub, certs.dir, 't'.repeat(40)),
  };
});
test.after.always(async () => {
  await stub?.close();
  certs?.remove();
});

const PROCFILE = Object.fromEntries(
  readFileSync(join(root, 'Procfile'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
);

function run(type: string, extra: NodeJS.ProcessEnv = {}) {
  const [cmd, ...args] = PROCFILE[type].split(' ');
  const child = spawn(cmd, args, { cwd: root, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += String(d)));
  child.stderr.on('data', (d: Buffer) => (output += String(d)));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exited, output: () => output };
}

test('the release phase migrates a production database and exits 0', async (t) => {
  const release = run('release');
  const [code] = await release.exited;
  t.is(code, 0, release.output());
});

for (const type of ['web', 'worker', 'webhooks']) {
  test(`${type}: starts with production configuration and stops on SIGTERM within 10 s`, async (t) => {
    const port = await freePort();
    // the worker reads the certificate from a file, the web process from the variable itself (a config var)
    const inline = type === 'web' ? { APIPIX_CERT_FILE: readFileSync(join(certs.dir, 'client.pem'), 'utf8') } : {};
    const proc = run(type, { PORT: String(port), WEB_CONCURRENCY: type === 'web' ? '2' : '1', ...inline });
    t.teardown(() => void proc.child.kill('SIGKILL'));
    const deadline = Date.now() + 30_000;
    while (!/"msg":"ready"/.test(proc.output()) && proc.child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    t.regex(proc.output(), /"msg":"ready"/, `${type} never said ready:\n${proc.output()}`);
    if (type === 'web') {
      const res = await fetch(`http://127.0.0.1:${port}/health`).catch((err: Error) => {
        throw new Error(`${err.message}: ${String(err.cause)}\n${proc.output()}`);
      });
      t.is(res.status, 200);
      t.is(res.headers.get('strict-transport-security')?.includes('max-age'), true);
      // production: /metrics wants its token
      t.is((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 401);
      const scrape = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      t.is(scrape.status, 200);
      // production: no sandbox routes
      t.is((await fetch(`http://127.0.0.1:${port}/v1/sandbox/charges/x/pay`, { method: 'POST' })).status, 404);
    }
    const started = Date.now();
    proc.child.kill('SIGTERM');
    const [code] = await proc.exited;
    t.is(code, 0, proc.output());
    t.true(Date.now() - started < 10_000, `${type} took ${Date.now() - started} ms to stop`);
  });
}
