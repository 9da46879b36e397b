// Amounts: integer centavos in our code, the API Pix decimal string ("10.50") on the wire. Never through floats.

// The standard's pattern for every `valor` (CobValor.original, Pix.valor, Devolucao.valor), anchored.
const WIRE = /^(\d{1,10})\.(\d{2})$/;
// The largest amount the pattern can carry: 9 999 999 999.99.
export const MAX_CENTAVOS = 999_999_999_999;

/** Centavos -> "reais.cc" (1 -> "0.01", 1050 -> "10.50"); throws RangeError on anything but an integer in range. */
export function toWire(centavos: number): string {
  if (!Number.isSafeInteger(centavos) || centavos < 0 || centavos > MAX_CENTAVOS) {
    throw new RangeError(`amount must be an integer number of centavos in 0..${MAX_CENTAVOS}, got ${String(centavos)}`);
  }
  const digits = String(centavos).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** "reais.cc" -> centavos; throws RangeError unless the text matches ^\d{1,10}\.\d{2}$ exactly. */
export function fromWire(valor: unknown): number {
  const m = typeof valor === 'string' ? WIRE.exec(valor) : null;
  if (!m) throw new RangeError(`valor must match ^\\d{1,10}\\.\\d{2}$, got ${JSON.stringify(valor)}`);
  // Both parts are short digit strings, so this is exact integer arithmetic (max 999 999 999 999 < 2^53).
  return Number(m[1]) * 100 + Number(m[2]);
}

/**
 * A JSON number of reais (Efí's infrações carry `valor: 10.5`) -> centavos. JSON.parse already made it a double;
 * String() gives back the shortest decimal text that round-trips, which is the text the PSP sent for any amount
 * with up to 15 significant digits, so the cents are read from that text, not multiplied in floating point.
 */
export function fromJsonNumber(valor: unknown): number {
  if (typeof valor !== 'number' || !Number.isFinite(valor) || valor < 0) {
    throw new RangeError(`valor must be a non-negative number of reais, got ${JSON.stringify(valor)}`);
  }
  const m = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(String(valor));
  if (!m) throw new RangeError(`valor must have at most 10 integer digits and 2 decimals, got ${String(valor)}`);
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}
