import { pino, type Logger } from 'pino';

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

export function createLogger(level: string, name: string): Logger {
  return pino({ name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}

export type { Logger };
