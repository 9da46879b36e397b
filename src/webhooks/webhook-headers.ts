// Custom headers a merchant's endpoint requires (an Authorization its gateway checks, a routing key...), sent with
// every delivery (contract). The headers the platform sets itself, and those HTTP reserves for the connection, cannot
// be overridden.
export const MAX_HEADERS = 10;
const NAME = /^[A-Za-z0-9-]{1,64}$/;
// The platform's own (the contract's list) and every name that speaks of the connection or of how the body travels
// rather than of the request (RFC 9110 7.6.1 Connection and the options it names: Keep-Alive, TE, Trailer, Upgrade,
// Proxy-Connection, Transfer-Encoding; 7.6.2-7.6.3 Max-Forwards, Via; 10.1.1 Expect; 11.7 Proxy-*; RFC 9113 8.2.2
// HTTP2-Settings), and any Content-* (the body is ours, JSON as it is signed: a Content-Encoding would lie about it).
// Node itself refuses some (a Trailer fails every attempt with ERR_HTTP_TRAILER_INVALID), others would make a
// delivery wait for a 100-continue or ask the receiver to switch protocols.
const RESERVED = [
  'user-agent',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'max-forwards',
  'via',
  'http2-settings',
];
const RESERVED_PREFIXES = ['webhook-', 'content-', 'proxy-'];
const PRINTABLE = /^[\x20-\x7e]{0,1000}$/;

/** A name the platform sets or HTTP keeps for the connection (case-insensitive). */
export const isReservedHeader = (name: string): boolean => {
  const lower = name.toLowerCase();
  return RESERVED.includes(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p));
};
const RESERVED_TEXT = [...RESERVED_PREFIXES.map((p) => `${p}*`), ...RESERVED].join(', ');

export const HEADER_MESSAGES = {
  notObject: `headers deve ser um objeto { "Nome": "valor" } com no máximo ${MAX_HEADERS} cabeçalhos, ou null`,
  tooMany: `headers aceita no máximo ${MAX_HEADERS} cabeçalhos`,
  name: (n: string) => `headers: nome de cabeçalho inválido ${JSON.stringify(n)} (use A-Z, a-z, 0-9 e -, até 64)`,
  reserved: (n: string) =>
    `headers: o cabeçalho ${JSON.stringify(n)} é definido pela plataforma ou pelo protocolo HTTP e não pode ser ` +
    `alterado (${RESERVED_TEXT})`,
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
    if (isReservedHeader(lower)) return HEADER_MESSAGES.reserved(name);
    if (seen.has(lower)) return HEADER_MESSAGES.duplicate(name); // "X-A" and "x-a" are one header
    seen.add(lower);
    if (typeof v !== 'string' || !PRINTABLE.test(v)) return HEADER_MESSAGES.value(name);
  }
  return null;
}

// {} is no header: stored as null, like an explicit null.
export const headersOf = (value: Record<string, string> | null | undefined) =>
  value === undefined ? undefined : value && Object.keys(value).length > 0 ? value : null;

/**
 * The custom headers a delivery may carry: those stored, less any name that is reserved now (a webhook saved before
 * a name was reserved keeps it in its record, but never sends it: a `Trailer` would fail every attempt on our side).
 * Only well-formed names and values pass, whatever the row holds. null when none is left.
 */
export function sendableHeaders(headers: Record<string, unknown> | null | undefined): Record<string, string> | null {
  if (!headers || typeof headers !== 'object') return null;
  const kept = Object.entries(headers).filter(
    (entry): entry is [string, string] =>
      NAME.test(entry[0]) && !isReservedHeader(entry[0]) && typeof entry[1] === 'string' && PRINTABLE.test(entry[1]),
  );
  return kept.length ? Object.fromEntries(kept) : null;
}
