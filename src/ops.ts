import { parseArgs } from 'node:util';
import type { PgBoss } from 'pg-boss';
import { loadConfig } from './platform/config.ts';
import { createLogger } from './platform/logger.ts';
import { createOrm } from './database.ts';
import { createBoss } from './platform/queue.ts';
import { embeddedDatabaseUrl } from './platform/embedded-pg.ts';
import { authCommands } from './auth/auth.ops.ts';
import { merchantCommands } from './merchants/merchants.ops.ts';
import { webhookCommands } from './webhooks/webhooks.ops.ts';
import { ledgerCommands } from './ledger/ledger.ops.ts';
import { refundCommands } from './refunds/refunds.ops.ts';
import { acquirerCommands } from './acquirer/acquirer.ops.ts';
import { infractionCommands } from './infractions/infractions.ops.ts';
import { secretCommands } from './webhooks/secrets.ops.ts';
import { OpsError, OpsFailure, type Command } from './platform/ops.ts';

export const commands: Command[] = [
  ...merchantCommands,
  ...authCommands,
  ...webhookCommands,
  ...ledgerCommands,
  ...refundCommands,
  ...acquirerCommands,
  ...infractionCommands,
  ...secretCommands,
];

function usage(): string {
  const lines = ['usage: npm run ops -- <command> [--flags]   (prints JSON; exit 1 on error)', '', 'commands:'];
  for (const c of commands) {
    lines.push(`  ${c.name.padEnd(20)} ${c.summary}`);
    for (const [flag, f] of Object.entries(c.flags)) {
      lines.push(
        `      --${flag}${f.type === 'string' ? ' <value>' : ''}${f.required ? '' : ' (optional)'}  ${f.description}`,
      );
    }
  }
  return lines.join('\n');
}

type Io = { out: (s: string) => void; err: (s: string) => void; env?: NodeJS.ProcessEnv };

// Runs one operator command; returns the process exit code. DATABASE_URL defaults to the `npm start` embedded database.
export async function main(argv: string[], io: Io = { out: console.log, err: console.error }): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name ? 0 : 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`unknown command "${name}"\n\n${usage()}`);
    return 1;
  }
  let flags: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries(Object.entries(command.flags).map(([k, f]) => [k, { type: f.type }]));
    ({ values: flags } = parseArgs({
      args: rest,
      options: { ...options, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.err(`${name}: ${(err as Error).message}`);
    return 1;
  }
  if (flags.help) {
    io.out(usage());
    return 0;
  }
  const missing = Object.entries(command.flags).filter(
    ([k, f]) => f.required && (flags[k] === undefined || flags[k] === ''),
  );
  if (missing.length) {
    io.err(`${name}: missing ${missing.map(([k]) => `--${k}`).join(', ')}`);
    return 1;
  }
  const config = loadConfig(io.env ?? process.env);
  const databaseUrl = config.databaseUrl || embeddedDatabaseUrl();
  const orm = await createOrm(databaseUrl, { pool: { min: 0, max: 2 } });
  let boss: PgBoss | undefined;
  try {
    const result = await command.run(
      {
        em: orm.em.fork(),
        config,
        boss: async () => (boss ??= await createBoss(databaseUrl, createLogger('silent', 'ops'))),
        progress: io.err,
      },
      flags,
    );
    io.out(JSON.stringify(result, null, 2));
    return 0;
  } catch (err) {
    if (!(err instanceof OpsError)) throw err;
    if (err instanceof OpsFailure) io.out(JSON.stringify(err.result, null, 2));
    io.err(`${name}: ${err.message}`);
    return 1;
  } finally {
    await boss?.stop({ graceful: true });
    await orm.close();
  }
}
