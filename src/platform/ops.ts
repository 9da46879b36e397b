// The operator CLI's framework: commands, their flags and their results.
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import { HttpError } from './errors.ts';

// An operator command: declared flags (parsed with node:util parseArgs), a JSON-serialisable result.
export type Flag = { type: 'string' | 'boolean'; required?: boolean; description: string };
// `progress` prints a line on stderr while a long command runs (stdout keeps only the JSON result).
export type OpsContext = {
  em: EntityManager;
  config: Config;
  boss: () => Promise<PgBoss>;
  progress: (line: string) => void;
};
export type Flags = Record<string, string | boolean | undefined>;
export type Command = {
  name: string;
  summary: string;
  flags: Record<string, Flag>;
  run: (ctx: OpsContext, flags: Flags) => Promise<unknown>;
};

// Exit codes of `npm run ops`, the same for every command (docs/operating.md).
export const EXIT = {
  ok: 0,
  failed: 1, // the command ran and said no: not found, refused by a rule, a check found problems
  usage: 2, // the command line is wrong: unknown command or flag, missing required flag, invalid flag value
  error: 3, // it could not run: no database found or reachable, bad configuration, an unexpected error
} as const;

// The command ran and refused (unknown e-mail, already decided…): one line on stderr, exit 1.
export class OpsError extends Error {}

// A flag value the command cannot use (not a number, not a date…): one line on stderr, exit 2.
export class OpsUsageError extends OpsError {}

// A check that ran and found problems: its report is printed as JSON like any result, and the exit code is 1.
export class OpsFailure extends OpsError {
  result: unknown;
  constructor(message: string, result: unknown) {
    super(message);
    this.result = result;
  }
}

export type OpsIo = { out: (s: string) => void; err: (s: string) => void; env?: NodeJS.ProcessEnv };
// What the CLI needs from the composition: a context for the command over the database, and its closing.
export type OpsSession = { ctx: OpsContext; close: () => Promise<void> };
export type OpsSetup = (env: NodeJS.ProcessEnv, progress: (line: string) => void) => Promise<OpsSession>;

const EXIT_CODES = 'exit codes: 0 done, 1 not found/refused/problems found, 2 usage error, 3 could not run';
const HELP = ['--help', '-h'];

const flagText = (name: string, f: Flag) => `--${name}${f.type === 'string' ? ' <value>' : ''}`;

// `kyc:approve --email <value> [--account <value>]`: required flags first, optional ones in brackets.
function synopsis(c: Command): string {
  const flags = Object.entries(c.flags);
  return [
    c.name,
    ...flags.filter(([, f]) => f.required).map(([n, f]) => flagText(n, f)),
    ...flags.filter(([, f]) => !f.required).map(([n, f]) => `[${flagText(n, f)}]`),
  ].join(' ');
}

export function usage(commands: Command[]): string {
  return [
    'usage: npm run -s ops -- <command> [--flags]    (prints JSON on stdout; -s keeps npm quiet for | jq)',
    '       npm run -s ops -- <command> --help       (one command: its flags)',
    '',
    'commands:',
    ...commands.flatMap((c) => [`  ${synopsis(c)}`, `      ${c.summary}`]),
    '',
    'database: DATABASE_URL, else the embedded PostgreSQL of the `npm start` running in this project',
    EXIT_CODES,
  ].join('\n');
}

export function commandUsage(c: Command): string {
  const flags = Object.entries(c.flags);
  const width = Math.max(0, ...flags.map(([n, f]) => flagText(n, f).length));
  return [
    `usage: npm run -s ops -- ${synopsis(c)}`,
    '',
    c.summary,
    ...(flags.length ? ['', 'flags:'] : []),
    ...flags.map(
      ([n, f]) => `  ${flagText(n, f).padEnd(width)}  ${f.required ? 'required' : 'optional'}  ${f.description}`,
    ),
    '',
    EXIT_CODES,
  ].join('\n');
}

function parse(command: Command, args: string[]): Flags {
  const options = Object.fromEntries(Object.entries(command.flags).map(([k, f]) => [k, { type: f.type }]));
  const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
  const missing = Object.entries(command.flags).filter(([k, f]) => f.required && (values[k] ?? '') === '');
  if (missing.length) throw new OpsUsageError(`missing ${missing.map(([k]) => `--${k}`).join(', ')}`);
  return values;
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();

/**
 * Runs one operator command and returns the exit code (EXIT). Whatever goes wrong is one line on stderr; the JSON
 * result (or a failed check's report) is the only thing on stdout.
 */
export async function runOps(commands: Command[], argv: string[], io: OpsIo, setup: OpsSetup): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(usage(commands));
    return EXIT.usage;
  }
  if (HELP.includes(name) || name === 'help') {
    const about = rest[0] === undefined ? undefined : commands.find((c) => c.name === rest[0]);
    if (rest[0] !== undefined && !about) {
      io.err(`unknown command "${rest[0]}" (npm run -s ops -- --help lists them)`);
      return EXIT.usage;
    }
    io.out(about ? commandUsage(about) : usage(commands));
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`unknown command "${name}" (npm run -s ops -- --help lists them)`);
    return EXIT.usage;
  }
  if (rest.some((a) => HELP.includes(a))) {
    io.out(commandUsage(command));
    return EXIT.ok;
  }
  let flags: Flags;
  try {
    flags = parse(command, rest);
  } catch (err) {
    io.err(`${name}: ${oneLine(err)} (npm run -s ops -- ${name} --help)`);
    return EXIT.usage;
  }

  let session: OpsSession | undefined;
  try {
    session = await setup(io.env ?? process.env, io.err);
    io.out(JSON.stringify(await command.run(session.ctx, flags), null, 2));
    return EXIT.ok;
  } catch (err) {
    if (err instanceof OpsFailure) io.out(JSON.stringify(err.result, null, 2));
    io.err(`${name}: ${oneLine(err)}`);
    if (err instanceof OpsUsageError) return EXIT.usage;
    // a domain error (NotFoundError, ConflictError…) is the command's answer, as an API status would be
    if (err instanceof OpsError || err instanceof HttpError) return EXIT.failed;
    if (/^(debug|trace)$/.test((io.env ?? process.env).LOG_LEVEL ?? '') && err instanceof Error && err.stack)
      io.err(err.stack);
    return EXIT.error;
  } finally {
    await session?.close().catch((err: unknown) => io.err(`${name}: closing the connections failed: ${oneLine(err)}`));
  }
}
