import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.ts';

// An operator command: declared flags (parsed with node:util parseArgs), a JSON-serialisable result.
export type Flag = { type: 'string' | 'boolean'; required?: boolean; description: string };
// `progress` prints a line on stderr while a long command runs (stdout keeps only the JSON result).
export type OpsContext = {
  em: EntityManager;
  config: Config;
  boss: () => Promise<PgBoss>;
  progress: (line: string) => void;
};
export type Command = {
  name: string;
  summary: string;
  flags: Record<string, Flag>;
  run: (ctx: OpsContext, flags: Record<string, string | boolean | undefined>) => Promise<unknown>;
};

// An operator mistake (unknown e-mail, bad flag value): printed as one line, exit code 1.
export class OpsError extends Error {}

// A check that ran and found problems: its report is printed as JSON like any result, and the exit code is 1.
export class OpsFailure extends OpsError {
  result: unknown;
  constructor(message: string, result: unknown) {
    super(message);
    this.result = result;
  }
}
