import { readFileSync } from 'node:fs';
import { ConfigError } from './config.ts';

export type PgSsl = false | { rejectUnauthorized: boolean; ca?: string };

// libpq's sslmode, from the URL's `sslmode` or PGSSLMODE, as node-postgres options. Every pool (ORM, pg-boss, the
// daemon's) gets the same explicit answer: MikroORM drops URL parameters, and node-postgres would read `require` as
// verify-full, which managed databases with private CAs (Heroku) refuse.
export function pgConnection(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): { url: string; ssl: PgSsl } {
  const url = new URL(databaseUrl);
  const mode = url.searchParams.get('sslmode') ?? env.PGSSLMODE ?? 'disable';
  for (const param of ['sslmode', 'ssl', 'uselibpqcompat']) url.searchParams.delete(param);
  const rootCert = url.searchParams.get('sslrootcert') ?? env.PGSSLROOTCERT;
  url.searchParams.delete('sslrootcert');
  const ssl = sslFor(mode, rootCert);
  return { url: url.toString(), ssl };
}

function sslFor(mode: string, rootCert: string | undefined): PgSsl {
  switch (mode) {
    case 'disable':
    case 'allow':
    case 'prefer': // node-postgres cannot fall back to plain text, so "prefer" means what it does on a local server
      return false;
    case 'require':
    case 'no-verify':
      return { rejectUnauthorized: false }; // encrypted; the server's certificate is not checked (libpq "require")
    case 'verify-ca':
    case 'verify-full':
      return rootCert ? { rejectUnauthorized: true, ca: readFileSync(rootCert, 'utf8') } : { rejectUnauthorized: true };
    default:
      throw new ConfigError(
        `sslmode/PGSSLMODE must be disable, prefer, require, no-verify, verify-ca or verify-full, got "${mode}"`,
      );
  }
}
