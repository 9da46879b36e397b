// The acquirer adapter named by ACQUIRER (sandbox or apipix), built from the config.
import { readFileSync } from 'node:fs';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import type { Acquirer } from './acquirer.ts';
import { createSandboxAcquirer } from './sandbox.ts';
import { createApiPixClient } from './apipix/client.ts';
import { createApiPixAcquirer } from './apipix/adapter.ts';

// A PEM given inline (a platform config var holding the certificate itself) or as the path of a file.
const pem = (value: string) =>
  value.startsWith('-----BEGIN') ? value.replace(/\\n/g, '\n') : readFileSync(value, 'utf8');

// The client's settings from APIPIX_* (the adapter and the acquirer:webhook command build the same client).
export function apiPixClientOptions(c: NonNullable<Config['apipix']>) {
  return {
    baseUrl: c.baseUrl,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    cert: pem(c.certFile),
    key: pem(c.keyFile),
    ...(c.caFile ? { ca: pem(c.caFile) } : {}),
    pixKey: c.pixKey,
    account: c.account,
    timeoutMs: c.timeoutMs,
  };
}

// Picks the adapter named by ACQUIRER. The sandbox keeps its state in our database, hence orm and boss.
export function createAcquirer(config: Config, deps: { orm: MikroORM; boss: PgBoss; logger: Logger }): Acquirer {
  if (!config.apipix)
    return createSandboxAcquirer({ publicBaseUrl: config.publicBaseUrl, orm: deps.orm, boss: deps.boss });
  const client = createApiPixClient({ ...apiPixClientOptions(config.apipix), logger: deps.logger });
  return createApiPixAcquirer(client);
}

export type { Acquirer } from './acquirer.ts';
