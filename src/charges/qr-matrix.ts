// The QR module matrix of a payload (ECC level M), several times cheaper than `QRCode.create(payload)`:
// - segments: qrcode's optimal segmentation runs a shortest-path search per call (~0.5 ms); BR Codes are byte text
//   with long digit and upper-case runs, so those go numeric/alphanumeric and the rest byte (at most one version more);
// - mask: qrcode tries all eight masks with per-module method calls (~0.7 ms); here it encodes once with mask 0 and
//   the same penalty rules (ISO 18004 N1-N4, qrcode's mask-pattern.js formulas) are scored over a flat array.
// The unit test proves the result equals QRCode.create with the same segments.
import { createRequire } from 'node:module';
import QRCode, { type QRCodeSegment } from 'qrcode';

const require = createRequire(import.meta.url);
const FormatInfo = require('qrcode/lib/core/format-info.js') as { getEncodedBits(ecl: unknown, mask: number): number };

const MASKS: ((i: number, j: number) => boolean)[] = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

// Where the 15 format bits go (both copies), as qrcode's setupFormatInfo places them.
function formatPositions(size: number): [number, number][][] {
  const pos: [number, number][][] = [];
  for (let i = 0; i < 15; i++) {
    const v: [number, number] = i < 6 ? [i, 8] : i < 8 ? [i + 1, 8] : [size - 15 + i, 8];
    const h: [number, number] = i < 8 ? [8, size - i - 1] : i < 9 ? [8, 15 - i] : [8, 14 - i];
    pos.push([v, h]);
  }
  return pos;
}

function penalty(d: Uint8Array, size: number): number {
  let points = 0;
  // N1: runs of 5+ same-colour modules in a row or a column; N3: finder-like 1:1:3:1:1 patterns
  for (let a = 0; a < size; a++) {
    let lastRow = -1, runRow = 0, lastCol = -1, runCol = 0, bitsRow = 0, bitsCol = 0;
    for (let b = 0; b < size; b++) {
      const m1 = d[a * size + b], m2 = d[b * size + a];
      if (m1 === lastRow) runRow++; else { if (runRow >= 5) points += 3 + runRow - 5; lastRow = m1; runRow = 1; }
      if (m2 === lastCol) runCol++; else { if (runCol >= 5) points += 3 + runCol - 5; lastCol = m2; runCol = 1; }
      bitsRow = ((bitsRow << 1) & 0x7ff) | m1;
      bitsCol = ((bitsCol << 1) & 0x7ff) | m2;
      if (b >= 10) {
        if (bitsRow === 0x5d0 || bitsRow === 0x05d) points += 40;
        if (bitsCol === 0x5d0 || bitsCol === 0x05d) points += 40;
      }
    }
    if (runRow >= 5) points += 3 + runRow - 5;
    if (runCol >= 5) points += 3 + runCol - 5;
  }
  // N2: 2x2 blocks of one colour; N4: deviation of the dark proportion from 50 %
  let blocks = 0, dark = 0;
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const i = r * size + c;
      dark += d[i];
      if (r < size - 1 && c < size - 1) {
        const s = d[i] + d[i + 1] + d[i + size] + d[i + size + 1];
        if (s === 0 || s === 4) blocks++;
      }
    }
  }
  points += blocks * 3;
  points += Math.abs(Math.ceil((dark * 100) / d.length / 5) - 10) * 10;
  return points;
}

// Mask bitmaps per symbol size (the few sizes BR Codes use are computed once and reused).
const maskCache = new Map<number, Uint8Array[]>();
function maskBitmaps(size: number): Uint8Array[] {
  let masks = maskCache.get(size);
  if (!masks) {
    masks = MASKS.map((fn) => {
      const m = new Uint8Array(size * size);
      for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) m[r * size + c] = fn(r, c) ? 1 : 0;
      return m;
    });
    maskCache.set(size, masks);
  }
  return masks;
}

// qrcode accepts string data for byte segments too; its d.ts only admits bytes, hence the cast where it is used.
export type Segment = { data: string; mode: 'numeric' | 'alphanumeric' | 'byte' };

export function segments(payload: string): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  // long digit runs: numeric (3.3 bits/char); long runs of the QR alphanumeric set: 5.5 bits; the rest: byte (8 bits)
  for (const m of payload.matchAll(/\d{9,}|[0-9A-Z $%*+\-./:]{12,}/g)) {
    if (m.index > last) out.push({ data: payload.slice(last, m.index), mode: 'byte' });
    out.push({ data: m[0], mode: /^\d+$/.test(m[0]) ? 'numeric' : 'alphanumeric' });
    last = m.index + m[0].length;
  }
  if (last < payload.length || out.length === 0) out.push({ data: payload.slice(last), mode: 'byte' });
  return out;
}

export function qrMatrix(payload: string): { size: number; data: Uint8Array; maskPattern: number } {
  const sym = QRCode.create(segments(payload) as unknown as QRCodeSegment[], { errorCorrectionLevel: 'M', maskPattern: 0 });
  const { size, data, reservedBit } = sym.modules as unknown as { size: number; data: Uint8Array; reservedBit: Uint8Array };
  const masks = maskBitmaps(size);
  const n = size * size;
  // Data bits without any mask (mask 0 undone); masks only touch cells that are not reserved.
  const base = Uint8Array.from(data);
  for (let i = 0; i < n; i++) if (!reservedBit[i]) base[i] ^= masks[0][i];
  const format = formatPositions(size);
  const apply = (p: number, out: Uint8Array) => {
    const m = masks[p];
    for (let i = 0; i < n; i++) out[i] = reservedBit[i] ? base[i] : base[i] ^ m[i];
    const bits = FormatInfo.getEncodedBits(sym.errorCorrectionLevel, p);
    for (let k = 0; k < 15; k++) {
      const [[vr, vc], [hr, hc]] = format[k];
      out[vr * size + vc] = out[hr * size + hc] = (bits >> k) & 1;
    }
    out[(size - 8) * size + 8] = 1; // the always-dark module
  };
  const scratch = new Uint8Array(n);
  let best = 0, bestPenalty = Infinity;
  for (let p = 0; p < 8; p++) {
    apply(p, scratch);
    const score = penalty(scratch, size);
    if (score < bestPenalty) { bestPenalty = score; best = p; }
  }
  apply(best, scratch);
  return { size, data: scratch, maskPattern: best };
}
