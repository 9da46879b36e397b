// The QR module matrix of a payload (ECC level M), several times cheaper than `QRCode.create(payload)` (figures:
// docs/performance.md): a cheap segmentation (digit and upper-case runs numeric/alphanumeric, the rest byte), and the
// eight masks scored with qrcode's own penalty rules (ISO 18004 N1-N4) over bit rows and columns.
// The unit test proves the result equals QRCode.create with the same segments.
import QRCode, { type QRCodeSegment } from 'qrcode';

// The 15 format bits of level M and each mask (ISO/IEC 18004 7.9.1): the level (M = 00) and the mask, a BCH(15,5) code
// over them (generator x^10+x^8+x^5+x^4+x^2+x+1), XOR 101010000010010. Computed here rather than read from qrcode's
// private lib/core/format-info.js; the test's comparison with QRCode.create covers every mask.
const FORMAT_BITS = Array.from({ length: 8 }, (_, mask) => {
  let rem = mask << 10;
  for (let i = 14; i >= 10; i--) if ((rem >> i) & 1) rem ^= 0b10100110111 << (i - 10);
  return ((mask << 10) | rem) ^ 0b101010000010010;
});

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

// The mask penalty over bit rows: bit c of line r is bit (c & 31) of word r * w + (c >> 5), so each rule is a few word
// operations per line instead of work per module. Lines are the rows, then (the same code over the transposed
// matrix) the columns. The scores equal qrcode's mask-pattern.js N1-N4 for every mask (see qr-matrix.test.ts).
class BitLines {
  readonly size: number;
  readonly w: number;
  private readonly t1: Uint32Array;
  private readonly valid: Uint32Array[]; // valid[k]: positions c <= size - 1 - k
  constructor(size: number) {
    this.size = size;
    this.w = (size + 31) >>> 5;
    this.t1 = new Uint32Array(this.w + 1);
    this.valid = Array.from({ length: 11 }, (_, k) => {
      const v = new Uint32Array(this.w + 1);
      for (let c = 0; c <= size - 1 - k; c++) v[c >>> 5] |= 1 << (c & 31);
      return v;
    });
  }

  // N1 (runs of 5+ same-colour modules: run - 2 points) and N3 (1:1:3:1:1 finder-like patterns: 40) along one line.
  line(bits: Uint32Array, off: number): number {
    const w = this.w,
      v10 = this.valid[10];
    let windows = 0,
      starts = 0,
      finders = 0,
      lastWindow = 0;
    let same = this.same(bits, off, 0);
    for (let i = 0; i < w; i++) {
      const x = bits[off + i],
        y = i + 1 < w ? bits[off + i + 1] : 0; // modules 32i.., and the next word's
      const next = this.same(bits, off, i + 1);
      // modules c..c+4 of one colour, and the first such window of each run
      const win = same & ((same >>> 1) | (next << 31)) & ((same >>> 2) | (next << 30)) & ((same >>> 3) | (next << 29));
      windows += popcount(win);
      starts += popcount(win & ~((win << 1) | lastWindow));
      lastWindow = win >>> 31;
      same = next;
      // bit c of a<k> is module c + k
      const a1 = (x >>> 1) | (y << 31),
        a2 = (x >>> 2) | (y << 30),
        a3 = (x >>> 3) | (y << 29),
        a4 = (x >>> 4) | (y << 28);
      const a5 = (x >>> 5) | (y << 27),
        a6 = (x >>> 6) | (y << 26),
        a7 = (x >>> 7) | (y << 25),
        a8 = (x >>> 8) | (y << 24);
      const a9 = (x >>> 9) | (y << 23),
        a10 = (x >>> 10) | (y << 22);
      const dark1011101 = ~a1 & a2 & a3 & a4 & ~a5 & a6; // modules c+1..c+6 of 1 0 1 1 1 0 1 after c
      const p1 = x & dark1011101 & ~a7 & ~a8 & ~a9 & ~a10; // 1 0 1 1 1 0 1 0 0 0 0
      const p2 = ~x & ~a1 & ~a2 & ~a3 & a4 & ~a5 & a6 & a7 & a8 & ~a9 & a10; // 0 0 0 0 1 0 1 1 1 0 1
      finders += popcount((p1 | p2) & v10[i]);
    }
    return windows + 2 * starts + 40 * finders;
  }

  // Bit c set where module c equals module c + 1 (c <= size - 2), for word i of the line.
  private same(bits: Uint32Array, off: number, i: number): number {
    if (i >= this.w) return 0;
    const x = bits[off + i],
      y = i + 1 < this.w ? bits[off + i + 1] : 0;
    return ~(x ^ ((x >>> 1) | (y << 31))) & this.valid[1][i];
  }

  // N2: 2x2 blocks of one colour, between the lines at offsets a and b (adjacent rows): 3 points each.
  blocks(bits: Uint32Array, a: number, b: number): number {
    const { w, t1: v } = this;
    const v1 = this.valid[1];
    let n = 0;
    for (let i = 0; i < w; i++) v[i] = ~(bits[a + i] ^ bits[b + i]);
    for (let i = 0; i < w; i++) {
      const nextV = i + 1 < w ? v[i + 1] : 0,
        nextA = i + 1 < w ? bits[a + i + 1] : 0;
      const right = (v[i] >>> 1) | (nextV << 31);
      const h = ~(bits[a + i] ^ ((bits[a + i] >>> 1) | (nextA << 31)));
      n += popcount(v[i] & right & h & v1[i]);
    }
    return n;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function penaltyOfBits(lines: BitLines, rows: Uint32Array, cols: Uint32Array): number {
  const { size, w } = lines;
  let points = 0,
    dark = 0;
  for (let r = 0; r < size; r++) {
    points += lines.line(rows, r * w) + lines.line(cols, r * w);
    if (r < size - 1) points += 3 * lines.blocks(rows, r * w, (r + 1) * w);
    for (let i = 0; i < w; i++) dark += popcount(rows[r * w + i]);
  }
  return points + Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10) * 10;
}

// A module matrix as bit rows (transposed: bit columns).
function toBits(d: Uint8Array, size: number, w: number, transposed: boolean): Uint32Array {
  const out = new Uint32Array(size * w);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (d[r * size + c]) {
        const [line, pos] = transposed ? [c, r] : [r, c];
        out[line * w + (pos >>> 5)] |= 1 << (pos & 31);
      }
    }
  }
  return out;
}

// Per symbol size (the few sizes BR Codes use are computed once): the mask bitmaps, and per mask the bits each one
// flips (outside the reserved function patterns), as bit rows and bit columns.
type SizeTables = { masks: Uint8Array[]; lines: BitLines; flipRows: Uint32Array[]; flipCols: Uint32Array[] };
const sizeCache = new Map<number, SizeTables>();
function tablesFor(size: number, reservedBit: Uint8Array): SizeTables {
  let t = sizeCache.get(size);
  if (!t) {
    const masks = MASKS.map((fn) => {
      const m = new Uint8Array(size * size);
      for (let r = 0; r < size; r++)
        for (let c = 0; c < size; c++) m[r * size + c] = fn(r, c) && !reservedBit[r * size + c] ? 1 : 0;
      return m;
    });
    const lines = new BitLines(size);
    t = {
      masks,
      lines,
      flipRows: masks.map((m) => toBits(m, size, lines.w, false)),
      flipCols: masks.map((m) => toBits(m, size, lines.w, true)),
    };
    sizeCache.set(size, t);
  }
  return t;
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

export function qrMatrix(payload: string): {
  size: number;
  data: Uint8Array;
  maskPattern: number;
  penalties: number[];
} {
  const sym = QRCode.create(segments(payload) as unknown as QRCodeSegment[], {
    errorCorrectionLevel: 'M',
    maskPattern: 0,
  });
  const { size, data, reservedBit } = sym.modules as unknown as {
    size: number;
    data: Uint8Array;
    reservedBit: Uint8Array;
  };
  const { masks, lines, flipRows, flipCols } = tablesFor(size, reservedBit);
  const n = size * size;
  const w = lines.w;
  // Data bits without any mask (mask 0 undone); a mask flips only the cells that are not reserved.
  const base = Uint8Array.from(data);
  for (let i = 0; i < n; i++) base[i] ^= masks[0][i];
  const baseRows = toBits(base, size, w, false),
    baseCols = toBits(base, size, w, true);
  const format = formatPositions(size);
  // The format bits of mask p and the always-dark module, written over a masked matrix (bytes or bits).
  const fixed = (p: number, set: (r: number, c: number, v: number) => void) => {
    const bits = FORMAT_BITS[p];
    for (let k = 0; k < 15; k++) {
      const [[vr, vc], [hr, hc]] = format[k];
      set(vr, vc, (bits >> k) & 1);
      set(hr, hc, (bits >> k) & 1);
    }
    set(size - 8, 8, 1);
  };
  const rows = new Uint32Array(size * w),
    cols = new Uint32Array(size * w);
  const setBit = (bits: Uint32Array, line: number, pos: number, v: number) => {
    const i = line * w + (pos >>> 5),
      b = 1 << (pos & 31);
    bits[i] = v ? bits[i] | b : bits[i] & ~b;
  };
  let best = 0;
  const penalties: number[] = [];
  for (let p = 0; p < 8; p++) {
    for (let i = 0; i < rows.length; i++) {
      rows[i] = baseRows[i] ^ flipRows[p][i];
      cols[i] = baseCols[i] ^ flipCols[p][i];
    }
    fixed(p, (r, c, v) => {
      setBit(rows, r, c, v);
      setBit(cols, c, r, v);
    });
    penalties.push(penaltyOfBits(lines, rows, cols));
    if (penalties[p] < penalties[best]) best = p; // ties keep the lower mask, as qrcode does
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = base[i] ^ masks[best][i];
  fixed(best, (r, c, v) => {
    out[r * size + c] = v;
  });
  return { size, data: out, maskPattern: best, penalties };
}
