// Reading error answers against the catalogue (src/platform/error-codes.ts): which codes a message may carry.
import { ERROR_CODES, type ErrorCode } from '../../src/platform/error-codes.ts';

export const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
// `{x}` in a family's message is the part that varies; a message may join several of its family with `; `.
const family = (code: ErrorCode) => {
  const one = ERROR_CODES[code].messages.map((m) => escape(m).replace(/\\?\{[A-Za-z]+\\?\}/g, '.+')).join('|');
  return new RegExp(`^(?:${one})(?:; (?:${one}))*$`);
};
const FAMILIES = new Map(CODES.map((code) => [code, family(code)]));

export const isCode = (code: unknown): code is ErrorCode => typeof code === 'string' && FAMILIES.has(code as ErrorCode);

// Whether a message is one of the code's family.
export const messageOf = (code: ErrorCode, message: string): boolean => FAMILIES.get(code)!.test(message);

// The codes whose family a message belongs to.
export const codesOf = (message: string): ErrorCode[] => CODES.filter((code) => messageOf(code, message));

// What is wrong with an error answer's body (null: nothing): a listed code, with a message of its family.
export function errorBodyProblem(status: number, body: unknown): string | null {
  const { code, message } = (body ?? {}) as { code?: unknown; message?: unknown };
  if (!isCode(code)) return `code ${JSON.stringify(code)} is not in src/platform/error-codes.ts`;
  if (typeof message !== 'string' || !messageOf(code, message))
    return `message ${JSON.stringify(message)} is not of the family of ${code}`;
  const expected = ERROR_CODES[code].status;
  if (expected === '4xx' ? status < 400 || status > 499 : status !== expected)
    return `status ${status}, while ${code} is answered ${expected}`;
  return null;
}

// The catalogue as the document's ErrorCode description shows it: one Markdown table row per code.
export const catalogueRows = (): string[] =>
  CODES.map((code) => {
    const { status, messages } = ERROR_CODES[code];
    return `| \`${code}\` | ${status} | ${messages.map((m) => `\`${m}\``).join('<br>')} |`;
  });
