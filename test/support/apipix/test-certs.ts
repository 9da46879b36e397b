// Throw-away PKI for mTLS tests, made with the openssl CLI: a CA, a server certificate for 127.0.0.1/localhost,
// a client certificate signed by that CA, and a "rogue" client certificate signed by another CA.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Pem = { cert: string; key: string };
export type TestCerts = { dir: string; ca: Pem; server: Pem; client: Pem; rogueClient: Pem; remove(): void };

// A config of our own, so the system's openssl.cnf (v3_ca defaults, prompts) cannot change what gets issued.
const CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
`;

export function createTestCerts(dir = mkdtempSync(join(tmpdir(), 'apipix-certs-'))): TestCerts {
  const cnf = join(dir, 'openssl.cnf');
  writeFileSync(cnf, CONFIG);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  // P-256 keys: generated in milliseconds, unlike RSA.
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

  const makeCa = (name: string) =>
    openssl(
      'req',
      '-config',
      cnf,
      '-x509',
      ...newKey,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
  const issue = (name: string, ca: string, subject: string, ext: string[]) =>
    openssl(
      'req',
      '-config',
      cnf,
      '-x509',
      ...newKey,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}.key`,
      '-days',
      '2',
      '-subj',
      subject,
      '-addext',
      'basicConstraints=critical,CA:FALSE',
      ...ext.flatMap((e) => ['-addext', e]),
    );

  makeCa('ca');
  makeCa('rogue-ca');
  issue('server', 'ca', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'extendedKeyUsage=serverAuth']);
  issue('client', 'ca', '/CN=apipix-test-client', ['extendedKeyUsage=clientAuth']);
  issue('rogue-client', 'rogue-ca', '/CN=apipix-test-client', ['extendedKeyUsage=clientAuth']);

  const pem = (name: string): Pem => ({
    cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    key: readFileSync(join(dir, `${name}.key`), 'utf8'),
  });
  return {
    dir,
    ca: pem('ca'),
    server: pem('server'),
    client: pem('client'),
    rogueClient: pem('rogue-client'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
