// PIX BR Code (EMV QRCPS-MPM) builder and parser, per Banco Central's
// "Manual de Padrões para Iniciação do Pix". Payloads are pure printable ASCII,
// so string length == byte length and every TLV length below is exact.
import anyAscii from 'any-ascii';

const GUI = 'br.gov.bcb.pix';
const PRINTABLE = /^[\x20-\x7E]*$/;

// CRC16/CCITT-FALSE table (poly 0x1021, MSB first): one lookup per byte instead of 8 shifts.
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, i) => {
  let c = i << 8;
  for (let j = 0; j < 8; j++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
  return c; // Uint16Array keeps the low 16 bits
});

/** CRC16/CCITT-FALSE (init 0xFFFF, no reflection, xorout 0) as 4 uppercase hex chars. */
export function crc16(payload: string): string {
  let crc = 0xffff;
  for (let i = 0; i < payload.length; i++) {
    const b = payload.charCodeAt(i);
    if (b > 0x7f) throw new RangeError('crc16: payload must be ASCII'); // else chars != bytes
    crc = ((crc << 8) ^ CRC_TABLE[((crc >> 8) ^ b) & 0xff]!) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** One EMV TLV field: 2-digit id, 2-digit length, value (1..99 printable ASCII chars). */
export function tlv(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new RangeError(`TLV id must be 2 digits, got "${id}"`);
  // The manual only allows printable ASCII; anything else would also break the length.
  if (!PRINTABLE.test(value)) throw new RangeError(`field ${id}: value must be printable ASCII`);
  if (value.length < 1 || value.length > 99) throw new RangeError(`field ${id}: length ${value.length} not in 1..99`);
  return id + String(value.length).padStart(2, '0') + value;
}

// Strip accents, transliterate other scripts ("Мой" -> "Moy", "日本" -> "RiBen"), drop emoji and other symbols, keep
// printable ASCII, collapse whitespace, trim, truncate; case is kept ("São Paulo" -> "Sao Paulo").
export function normalizeText(s: string, max: number): string {
  return anyAscii(
    s
      .normalize('NFKD') // NFD plus compatibility folding, so "nº" -> "no" and "ﬁ" -> "fi" instead of being dropped
      .replace(/\p{M}/gu, '') // combining marks: "ã" -> "a", "ç" -> "c"
      .replace(/[\p{So}\p{Sk}\p{Cs}\p{Co}\p{Cn}]/gu, ''), // emoji and symbols have no letters to keep
  )
    .replace(/\s+/g, ' ') // tabs, newlines, NBSP become a plain space
    .replace(/[^\x20-\x7E]/g, '') // whatever is left outside ASCII is dropped
    .replace(/ {2,}/g, ' ') // dropping characters may have left double spaces
    .trim()
    .slice(0, max)
    .trimEnd(); // truncation may end on a space
}

// Field 59 cannot be empty: a name with nothing printable left (only emoji, say) is shown as this.
export const FALLBACK_MERCHANT_NAME = 'Recebedor PIX';

/** Integer cents -> "reais.cc" without floats (1 -> "0.01", 123456 -> "1234.56"). */
export function formatAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents <= 0)
    throw new RangeError(`amountCents must be a positive integer, got ${cents}`);
  const s = String(cents).padStart(3, '0');
  const out = `${s.slice(0, -2)}.${s.slice(-2)}`;
  if (out.length > 13) throw new RangeError('amount exceeds the 13 characters of field 54'); // EMV limit
  return out;
}

// Fields 52..60 are the same for every PIX charge we emit (MCC 0000, BRL, BR).
function commonTail(amountCents: number | undefined, name: string, city: string): string {
  const amount = amountCents === undefined ? '' : tlv('54', formatAmount(amountCents));
  return (
    tlv('52', '0000') +
    tlv('53', '986') +
    amount +
    tlv('58', 'BR') +
    tlv('59', normalizeText(name, 25) || FALLBACK_MERCHANT_NAME) +
    tlv('60', normalizeText(city, 15) || 'BRASIL')
  );
}

// The CRC covers everything up to and including its own "6304" header.
function withCrc(body: string): string {
  const s = body + '6304';
  return s + crc16(s);
}

export interface DynamicPixInput {
  location: string; // PSP payload URL, e.g. "https://pix.example.com/qr/v2/abc"
  amountCents?: number; // omitted -> no field 54 (the JSON behind `location` is authoritative anyway)
  merchantName: string;
  merchantCity: string;
  txid?: string; // not emitted: for dynamic QRs the txid travels in the location payload and 62-05 must be "***"
  recurrenceLocation?: string; // Pix Automático: the locrec URL (field 80-25), the mandate the payer approves
}

/** Dynamic, single-use BR Code pointing at a location URL (field 26-25). */
export function buildDynamicPix(input: DynamicPixInput): string {
  if (input.txid !== undefined && !/^[a-zA-Z0-9]{26,35}$/.test(input.txid)) {
    throw new RangeError('txid must be 26-35 alphanumeric characters'); // API Pix rule for cob txids
  }
  const url = input.location.trim().replace(/^https?:\/\//i, ''); // the manual stores the URL without scheme
  return withCrc(
    tlv('00', '01') +
      tlv('01', '12') + // 12 = single use
      tlv('26', tlv('00', GUI) + tlv('25', url)) +
      commonTail(input.amountCents, input.merchantName, input.merchantCity) +
      tlv('62', tlv('05', '***')) +
      (input.recurrenceLocation
        ? tlv('80', tlv('00', GUI) + tlv('25', input.recurrenceLocation.trim().replace(/^https?:\/\//i, '')))
        : ''),
  );
}

export interface StaticPixInput {
  key: string; // PIX key (CPF/CNPJ, e-mail, +55 phone or random EVP)
  amountCents?: number;
  merchantName: string;
  merchantCity: string;
  txid?: string; // up to 25 alphanumerics; "***" when absent
  description?: string;
}

/** Static BR Code carrying the PIX key itself (field 26-01). */
export function buildStaticPix(input: StaticPixInput): string {
  const key = input.key.trim();
  if (input.txid !== undefined && !/^[a-zA-Z0-9]{1,25}$/.test(input.txid)) {
    throw new RangeError('static txid must be 1-25 alphanumeric characters');
  }
  // The description gets whatever room template 26 has left after the GUI and the key.
  const room = Math.max(0, 99 - tlv('00', GUI).length - (4 + key.length) - 4);
  const desc = normalizeText(input.description ?? '', room);
  return withCrc(
    tlv('00', '01') +
      tlv('26', tlv('00', GUI) + tlv('01', key) + (desc ? tlv('02', desc) : '')) +
      commonTail(input.amountCents, input.merchantName, input.merchantCity) +
      tlv('62', tlv('05', input.txid ?? '***')),
  );
}

// Splits a TLV string into fields; throws on anything that is not exact TLV.
function parseTlv(s: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < s.length) {
    const id = s.slice(i, i + 2);
    const len = s.slice(i + 2, i + 4);
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(len)) throw new SyntaxError(`${where}: bad TLV header at ${i}`);
    const end = i + 4 + Number(len);
    if (end > s.length) throw new SyntaxError(`${where}: field ${id} overruns the payload`);
    if (id in out) throw new SyntaxError(`${where}: duplicate field ${id}`);
    out[id] = s.slice(i + 4, end);
    i = end;
  }
  return out;
}

export interface ParsedBrCode {
  fields: Record<string, string>; // top-level id -> raw value
  templates: Record<string, Record<string, string>>; // 26-51, 62, 80-99 split into sub-fields
  merchantAccount: Record<string, string>; // the template whose GUI (00) is br.gov.bcb.pix, or {}
  additionalData: Record<string, string>; // template 62, or {}
  crcValid: boolean;
}

/** Parses a BR Code; throws on malformed TLV, reports a wrong CRC as crcValid=false. */
export function parseBrCode(payload: string): ParsedBrCode {
  if (!PRINTABLE.test(payload)) throw new SyntaxError('BR Code must be printable ASCII');
  // Field 00 must come first and the CRC (63, length 04) last and only once, so split it off before parsing.
  if (!payload.startsWith('000201')) throw new SyntaxError('BR Code must start with field 00 = "01"');
  if (!/6304[0-9A-Fa-f]{4}$/.test(payload)) throw new SyntaxError('BR Code must end with the 6304 CRC field');
  const fields = parseTlv(payload.slice(0, -8), 'payload');
  if ('63' in fields) throw new SyntaxError('payload: duplicate field 63');
  fields['63'] = payload.slice(-4);
  const templates: Record<string, Record<string, string>> = {};
  for (const [id, value] of Object.entries(fields)) {
    const n = Number(id); // EMV templates: 26-51 merchant accounts, 62 additional data, 80-99 unreserved
    if ((n >= 26 && n <= 51) || n === 62 || n >= 80) templates[id] = parseTlv(value, `field ${id}`);
  }
  const merchantAccount =
    Object.entries(templates).find(([id, t]) => Number(id) <= 51 && t['00']?.toLowerCase() === GUI)?.[1] ?? {};
  return {
    fields,
    templates,
    merchantAccount,
    additionalData: templates['62'] ?? {},
    crcValid: crc16(payload.slice(0, -4)) === payload.slice(-4).toUpperCase(),
  };
}
