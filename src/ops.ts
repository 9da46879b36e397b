// The operator CLI (npm run ops): every module's commands over the target database.
import type { PgBoss } from 'pg-boss';
import { loadConfig } from './platform/config.ts';
import { createLogger } from './platform/logger.ts';
import { createOrm } from './database.ts';
import { createBoss } from './platform/queue.ts';
import { resolveDatabase, toolEnv } from './dev-db/database-target.ts';
import { runOps, type Command, type OpsIo, type OpsSetup } from './platform/ops.ts';
import { authCommands } from './auth/auth.ops.ts';
import { merchantCommands } from './merchants/merchants.ops.ts';
import { webhookCommands } from './webhooks/webhooks.ops.ts';
import { ledgerCommands } from './ledger/ledger.ops.ts';
import { refundCommands } from './refunds/refunds.ops.ts';
import { acquirerCommands } from './acquirer/acquirer.ops.ts';
import { infractionCommands } from './infractions/infractions.ops.ts';
import { secretCommands } from './webhooks/secrets.ops.ts';
import { recurringCommands } from './recurring/recurring.ops.ts';

export const commands: Command[] = [
  ...merchantCommands,
  ...authCommands,
  ...webhookCommands,
  ...ledgerCommands,
  ...refundCommands,
  ...acquirerCommands,
  ...infractionCommands,
  ...secretCommands,
  ...recurringCommands,
];

// The database (DATABASE_URL, else the running `npm start`'s embedded one), named on stderr; its ORM and, on demand,
// pg-boss (which only sends: an operator command works no queue). No secret is required up front: a command that
// needs one (secrets:rotate-key, acquirer:webhook) says so.
const setup: OpsSetup = async (env, progress) => {
  const target = resolveDatabase(env);
  progress(`ops: database ${target.description}`);
  const config = loadConfig(toolEnv(env, target), 'tool');
  const orm = await createOrm(target.url, { pool: { min: 0, max: 2 } });
  let boss: PgBoss | undefined;
  return {
    ctx: {
      em: orm.em.fork(),
      config,
      boss: async () => (boss ??= await createBoss(target.url, createLogger('silent', 'ops'))),
      progress,
    },
    async close() {
      await boss?.stop({ graceful: true });
      await orm.close();
    },
  };
};

// Runs one operator command; returns the process exit code (EXIT in src/platform/ops.ts).
export const main = (argv: string[], io: OpsIo = { out: console.log, err: console.error }): Promise<number> =>
  runOps(commands, argv, io, setup);
