// A database URL's TLS settings (sslmode, root certificate) as node-postgres options.
import { readFileSync } from 'node:fs';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { ConfigError } from './config.ts';

export type PgSsl =
  | false
  | {
      rejectUnauthorized: boolean;
      ca?: string;
      checkServerIdentity?: (servername: string, cert: PeerCertificate) => Error | undefined;
    };

/**
 * libpq's sslmode, from the URL's `sslmode` or PGSSLMODE, as node-postgres options. Every pool (ORM, pg-boss, the
 * daemon's, the rate limiter's) gets the same explicit answer: MikroORM drops URL parameters, and node-postgres would
 * read `require` as verify-full, which managed databases with private CAs (Heroku) refuse.
 * The root certificate comes from `sslrootcert` or PGSSLROOTCERT (a PEM file; `system`: the system's CAs).
 */
export function pgConnection(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): { url: string; ssl: PgSsl } {
  const url = new URL(databaseUrl);
  const mode = url.searchParams.get('sslmode') ?? env.PGSSLMODE ?? 'disable';
  for (const param of ['sslmode', 'ssl', 'uselibpqcompat']) url.searchParams.delete(param);
  const rootCert = url.searchParams.get('sslrootcert') ?? env.PGSSLROOTCERT;
  url.searchParams.delete('sslrootcert');
  // the host node-postgres connects to (its defaults: PGHOST, then localhost); an IPv6 literal without brackets
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1') || env.PGHOST || 'localhost';
  return { url: url.toString(), ssl: sslFor(mode, rootCert || undefined, host) };
}

// The CA to trust: a PEM file, or the system's (node's default store) for "system" or none.
const caOf = (rootCert: string | undefined) =>
  rootCert && rootCert !== 'system' ? { ca: readFileSync(rootCert, 'utf8') } : {};

// libpq refuses verify-ca without a CA file of its own, or with every public CA: the chain alone would prove nothing.
function verifyCa(mode: string, rootCert: string | undefined): PgSsl {
  if (!rootCert || rootCert === 'system')
    throw new ConfigError(
      `sslmode=${mode} needs sslrootcert/PGSSLROOTCERT, the PEM file of the server's CA (with the system's CAs, use verify-full)`,
    );
  return { rejectUnauthorized: true, ...caOf(rootCert), checkServerIdentity: () => undefined };
}

/**
 * As libpq (https://www.postgresql.org/docs/current/libpq-ssl.html):
 * - require: encrypted, the certificate not checked; but with a root certificate given it is checked as verify-ca.
 * - verify-ca: the chain is checked against the root certificate, never the host name.
 * - verify-full: the chain, and the host name against the certificate: its IP SANs when the host is an IP address.
 *   Node's default check would compare the name `localhost` there, as node-postgres sends no SNI for an IP address.
 */
function sslFor(mode: string, rootCert: string | undefined, host: string): PgSsl {
  switch (mode) {
    case 'disable':
    case 'allow':
    case 'prefer': // node-postgres cannot fall back to plain text, so "prefer" means what it does on a local server
      return false;
    case 'no-verify': // node-postgres' name: encrypted, never checked
      return { rejectUnauthorized: false };
    case 'require':
      return rootCert ? verifyCa(mode, rootCert) : { rejectUnauthorized: false };
    case 'verify-ca':
      return verifyCa(mode, rootCert);
    case 'verify-full':
      return {
        rejectUnauthorized: true,
        ...caOf(rootCert),
        checkServerIdentity: (_servername, cert) => checkServerIdentity(host, cert),
      };
    default:
      throw new ConfigError(
        `sslmode/PGSSLMODE must be disable, prefer, require, no-verify, verify-ca or verify-full, got "${mode}"`,
      );
  }
}
