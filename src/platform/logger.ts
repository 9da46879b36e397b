// The logger (pino), with secrets redacted.
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';

// Secrets never reach the logs: these paths are censored wherever they appear.
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'value',
  '*.value',
];

type PrettyFactory = (opts: Record<string, unknown>) => DestinationStream;
const require = createRequire(import.meta.url);

// Readable lines for a developer watching a terminal (NODE_ENV=development and stdout a TTY); JSON lines everywhere
// else (a file, a pipe, a log collector, production). pino-pretty is a dev dependency: loaded only when wanted, and
// absent after `npm ci --omit=dev`, then JSON it is. Redaction happens before the lines reach either.
function prettyStream(env: NodeJS.ProcessEnv, stdout: { isTTY?: boolean }): DestinationStream | undefined {
  if (env.NODE_ENV !== 'development' || !stdout.isTTY) return undefined;
  let pretty: PrettyFactory;
  try {
    pretty = require('pino-pretty') as PrettyFactory;
  } catch {
    return undefined;
  }
  // sync: a fatal line is written before process.exit()
  return pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

export function createLogger(level: string, name: string): Logger {
  const options = { name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  const pretty = prettyStream(process.env, process.stdout);
  return pretty ? pino(options, pretty) : pino(options);
}

export type { Logger };
