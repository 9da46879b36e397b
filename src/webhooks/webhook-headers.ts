// Custom headers a merchant's endpoint requires (an Authorization its gateway checks, a routing key...), sent with
// every delivery (contract). The headers the platform sets itself, and those HTTP reserves for the connection, cannot
// be overridden.
export const MAX_HEADERS = 10;
const NAME = /^[A-Za-z0-9-]{1,64}$/;
const RESERVED = new Set(['content-type', 'content-length', 'user-agent', 'host', 'connection', 'transfer-encoding']);
const PRINTABLE = /^[\x20-\x7e]{0,1000}$/;

export const HEADER_MESSAGES = {
  notObject: `headers deve ser um objeto { "Nome": "valor" } com no máximo ${MAX_HEADERS} cabeçalhos, ou null`,
  tooMany: `headers aceita no máximo ${MAX_HEADERS} cabeçalhos`,
  name: (n: string) => `headers: nome de cabeçalho inválido ${JSON.stringify(n)} (use A-Z, a-z, 0-9 e -, até 64)`,
  reserved: (n: string) =>
    `headers: o cabeçalho ${JSON.stringify(n)} é definido pela plataforma e não pode ser alterado ` +
    `(webhook-*, content-type, content-length, user-agent, host, connection, transfer-encoding)`,
  duplicate: (n: string) => `headers: o cabeçalho ${JSON.stringify(n)} aparece mais de uma vez`,
  value: (n: string) =>
    `headers: o valor de ${JSON.stringify(n)} deve ser um texto ASCII imprimível de até 1000 caracteres`,
};

// The first problem with a `headers` value (null clears them, so it is fine), or null.
export function headersProblem(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return HEADER_MESSAGES.notObject;
  const entries = Object.entries(value);
  if (entries.length > MAX_HEADERS) return HEADER_MESSAGES.tooMany;
  const seen = new Set<string>();
  for (const [name, v] of entries) {
    if (!NAME.test(name)) return HEADER_MESSAGES.name(name);
    const lower = name.toLowerCase();
    if (lower.startsWith('webhook-') || RESERVED.has(lower)) return HEADER_MESSAGES.reserved(name);
    if (seen.has(lower)) return HEADER_MESSAGES.duplicate(name); // "X-A" and "x-a" are one header
    seen.add(lower);
    if (typeof v !== 'string' || !PRINTABLE.test(v)) return HEADER_MESSAGES.value(name);
  }
  return null;
}

// {} is no header: stored as null, like an explicit null.
export const headersOf = (value: Record<string, string> | null | undefined) =>
  value === undefined ? undefined : value && Object.keys(value).length > 0 ? value : null;
