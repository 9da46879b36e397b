// `npm run migrate` (the release phase) failing as operators meet it: a certificate that does not match, a database
// that does not answer, a bad setting. Each is one line saying why and exit code 1: no stack, no certificate dump.
import test from 'ava';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { freePort } from './support/procs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'pix-migrate-'));
let server: Server;
let tlsPort: number;

// Answers PostgreSQL's SSLRequest with 'S', then TLS with a self-signed certificate for db.example.test: trusted
// (sslrootcert), but not for the host the URL names, so verify-full fails and Node's error carries the certificate.
test.before(async () => {
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'],
      ...['-keyout', 'key.pem', '-out', 'cert.pem', '-subj', '/CN=db.example.test'],
      ...['-addext', 'subjectAltName=DNS:db.example.test'],
    ],
    { cwd: dir, stdio: 'pipe' },
  );
  const context = createSecureContext({
    cert: readFileSync(join(dir, 'cert.pem')),
    key: readFileSync(join(dir, 'key.pem')),
  });
  server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.pause();
      socket.write('S', () => new TLSSocket(socket, { isServer: true, secureContext: context }).on('error', () => {}));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  tlsPort = (server.address() as { port: number }).port;
});
test.after.always(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function migrate(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['scripts/migrate.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: 'development', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d));
  child.stderr.on('data', (d: Buffer) => (output += d));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, output, lines: output.trim().split('\n') };
}

function oneLine(t: import('ava').ExecutionContext, r: Awaited<ReturnType<typeof migrate>>, why: RegExp) {
  t.is(r.code, 1, r.output);
  t.is(r.lines.length, 1, r.output);
  const line = JSON.parse(r.lines[0]);
  t.is(line.level, 60);
  t.regex(line.msg, why);
  t.notRegex(r.output, /\n\s+at |BEGIN CERTIFICATE|pubkey|fingerprint|"raw"/);
}

test('a certificate that does not match the host: one line, without the certificate', async (t) => {
  const url = `postgres://u:p@127.0.0.1:${tlsPort}/pix?sslmode=verify-full&sslrootcert=${join(dir, 'cert.pem')}`;
  const r = await migrate({ DATABASE_URL: url });
  oneLine(
    t,
    r,
    /^migration of 127\.0\.0\.1:\d+\/pix \(DATABASE_URL\) failed: Hostname\/IP does not match certificate's/,
  );
  t.false(r.output.includes(':p@'), 'no password');
});

test('a database that does not answer: one line', async (t) => {
  const r = await migrate({ DATABASE_URL: `postgres://u:p@127.0.0.1:${await freePort()}/pix` });
  oneLine(t, r, /failed: .*ECONNREFUSED/);
});

test('a bad setting: one line; LOG_LEVEL=debug adds the full error', async (t) => {
  const bad = { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/pix', DATABASE_POOL_MODE: 'statement' };
  oneLine(t, await migrate(bad), /failed: DATABASE_POOL_MODE must be session or transaction, got "statement"/);
  const debug = await migrate({ ...bad, LOG_LEVEL: 'debug' });
  t.is(debug.code, 1);
  t.is(debug.lines.length, 2);
  const full = debug.lines.map((l) => JSON.parse(l)).find((l) => l.level === 20);
  t.like(full, { msg: 'migration failed', err: { type: 'ConfigError' } });
  t.regex(full.err.stack, /\n\s+at /);
});

test('DATABASE_DIRECT_URL wins over DATABASE_URL (the release phase bypasses a transaction pooler)', async (t) => {
  const r = await migrate({
    DATABASE_URL: `postgres://u:p@127.0.0.1:${await freePort()}/pooled`,
    DATABASE_DIRECT_URL: `postgres://u:p@127.0.0.1:${await freePort()}/direct`,
  });
  oneLine(t, r, /^migration of 127\.0\.0\.1:\d+\/direct \(DATABASE_DIRECT_URL\) failed/);
});
