// TLS to PostgreSQL as libpq means it, against a real server with ssl on and real certificates (openssl): verify-full
// checks the host name (an IP host against the IP SANs), verify-ca only the chain, require nothing (or the chain
// when a root certificate is given). The server is our own embedded one: its certificate is switched between tests.
import { statement } from '../src/platform/sql.ts';
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDb } from '../src/dev-db/embedded-pg.ts';
import { serverTempDir, serverUser } from '../src/dev-db/embedded-pg-files.ts';
import { createPgPool } from '../src/platform/pg.ts';
import { createLogger } from '../src/platform/logger.ts';
import { MikroORM, ormConfig } from '../src/platform/db.ts';
import { freePort } from './support/procs.ts';

const pki = mkdtempSync(join(tmpdir(), 'pg-tls-'));
let dataDir: string | undefined;
let db: EmbeddedDb;
let port: number;

// A CA, another CA, and three server certificates from the first: IP SAN only, DNS:localhost only, another name.
function makePki() {
  writeFileSync(join(pki, 'openssl.cnf'), '[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = unused\n');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki, stdio: 'pipe' });
  const req = (name: string, subject: string, ext: string[], ca?: string) =>
    openssl(
      'req',
      '-config',
      'openssl.cnf',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      subject,
      ...(ca ? ['-CA', `${ca}.pem`, '-CAkey', `${ca}.key`] : []),
      ...ext.flatMap((e) => ['-addext', e]),
    );
  const ca = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'];
  const leaf = (san: string) => [
    'basicConstraints=critical,CA:FALSE',
    `subjectAltName=${san}`,
    'extendedKeyUsage=serverAuth',
  ];
  req('ca', '/CN=pg-test-ca', ca);
  req('other-ca', '/CN=pg-other-ca', ca);
  req('ip', '/CN=postgres.internal', leaf('IP:127.0.0.1'), 'ca');
  req('localhost', '/CN=localhost', leaf('DNS:localhost'), 'ca');
  req('wrongname', '/CN=db.example.com', leaf('DNS:db.example.com'), 'ca');
}

// The server presents `name`'s certificate from now on (the files in its data directory, owned by its user).
async function serve(name: string) {
  const as = serverUser();
  for (const ext of ['pem', 'key']) {
    const to = join(db.dir, `tls-${name}.${ext}`);
    copyFileSync(join(pki, `${name}.${ext}`), to);
    if (as) chownSync(to, as.uid, as.gid);
    chmodSync(to, 0o600);
  }
  const admin = new pg.Client({ connectionString: db.adminUrl });
  await admin.connect();
  try {
    await admin.query('alter system set ssl = on');
    await admin.query(`alter system set ssl_cert_file = '${join(db.dir, `tls-${name}.pem`)}'`);
    await admin.query(`alter system set ssl_key_file = '${join(db.dir, `tls-${name}.key`)}'`);
    await admin.query('select pg_reload_conf()');
  } finally {
    await admin.end();
  }
  // the reload is asynchronous: wait until new connections get the certificate
  const wanted = new X509Certificate(readFileSync(join(pki, `${name}.pem`))).fingerprint256;
  for (const deadline = Date.now() + 15_000; ;) {
    const probe = new pg.Client({ connectionString: db.adminUrl, ssl: { rejectUnauthorized: false } });
    let seen: string | undefined;
    try {
      await probe.connect();
      const stream = (probe as unknown as { connection: { stream: TLSSocket } }).connection.stream;
      seen = stream.getPeerCertificate().fingerprint256;
    } catch {
      /* ssl not on yet */
    } finally {
      await probe.end().catch(() => {});
    }
    if (seen === wanted) return;
    if (Date.now() > deadline) throw new Error(`the server does not present ${name}.pem after its reload`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const url = (host: string, query: string) => `postgresql://postgres:postgres@${host}:${port}/postgres?${query}`;
const SSL_OF = statement(
  'test.tls_ssl_of',
  'select coalesce((select ssl from pg_stat_ssl where pid = pg_backend_pid()), false) as ssl',
);

// Whether a pool built as every process builds its pools connects, over TLS.
async function connects(host: string, query: string): Promise<true> {
  const pool = createPgPool(url(host, query), 1, createLogger('silent', 'test'), 'tls-test');
  try {
    const rows = await pool.query<{ ssl: boolean }>(SSL_OF);
    if (!rows[0].ssl) throw new Error('connected in plain text');
    return true;
  } finally {
    await pool.close();
  }
}
const refused = async (host: string, query: string): Promise<string> => {
  try {
    await connects(host, query);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  }
  return 'connected';
};

const ca = () => `sslrootcert=${join(pki, 'ca.pem')}`;
const otherCa = () => `sslrootcert=${join(pki, 'other-ca.pem')}`;

test.before(async () => {
  makePki();
  dataDir = serverTempDir('pix-tls-pg-');
  port = await freePort();
  db = await startEmbeddedPostgres({ dir: join(dataDir, 'pg'), port, database: 'postgres', persistent: false });
});
test.after.always(async () => {
  await db?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  rmSync(pki, { recursive: true, force: true });
});

test.serial('verify-full to an IP address: a certificate with that IP SAN is accepted (pool and ORM)', async (t) => {
  await serve('ip');
  t.true(await connects('127.0.0.1', `sslmode=verify-full&${ca()}`));
  t.true(await connects('127.0.0.1', `sslmode=verify-ca&${ca()}`));
  const orm = await MikroORM.init(
    ormConfig(url('127.0.0.1', `sslmode=verify-full&${ca()}`), [], { discovery: { warnWhenNoEntities: false } }),
  );
  t.teardown(() => orm.close());
  t.deepEqual(await orm.em.fork().execute(SSL_OF.text), [{ ssl: true }]);
});

test.serial('verify-full to an IP address: a certificate for DNS:localhost only is refused', async (t) => {
  await serve('localhost');
  t.is(await refused('127.0.0.1', `sslmode=verify-full&${ca()}`), 'ERR_TLS_CERT_ALTNAME_INVALID');
  t.true(await connects('localhost', `sslmode=verify-full&${ca()}`), 'the name it was made for is accepted');
  t.true(await connects('127.0.0.1', `sslmode=verify-ca&${ca()}`), 'verify-ca never looks at the name');
});

test.serial('a certificate for another name: accepted by verify-ca, refused by verify-full', async (t) => {
  await serve('wrongname');
  for (const host of ['127.0.0.1', 'localhost']) {
    t.true(await connects(host, `sslmode=verify-ca&${ca()}`), host);
    t.is(await refused(host, `sslmode=verify-full&${ca()}`), 'ERR_TLS_CERT_ALTNAME_INVALID', host);
  }
  t.true(await connects('127.0.0.1', `sslmode=require&${ca()}`), 'require with a root certificate is verify-ca');
});

test.serial(
  'a certificate from another CA: refused by verify-ca, verify-full and require with a root cert',
  async (t) => {
    await serve('ip');
    for (const mode of ['verify-ca', 'verify-full', 'require'])
      t.regex(await refused('127.0.0.1', `sslmode=${mode}&${otherCa()}`), /CERT|SIGNATURE|ISSUER/, mode);
    t.regex(await refused('127.0.0.1', 'sslmode=verify-full'), /CERT|SIGNATURE|ISSUER/, 'not in the system store');
    // require without a root certificate: encrypted, nothing checked (libpq)
    t.true(await connects('127.0.0.1', 'sslmode=require'));
    t.true(await connects('127.0.0.1', 'sslmode=no-verify'));
  },
);
