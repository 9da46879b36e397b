import { createRequire } from 'node:module';

// pngjs ships no types and jsqr's d.ts declares an ES default that its UMD bundle does not
// have at runtime, so both are loaded through require with the little typing we need.
const require = createRequire(import.meta.url);
type Rgba = { width: number; height: number; data: Buffer };
export const { PNG } = require('pngjs') as { PNG: { sync: { read(png: Buffer): Rgba } } };
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;

// Reads a QR code out of a PNG with independent decoders (pngjs + jsqr), as a phone camera would.
export function decodeQr(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
}

export function decodeQrDataUrl(dataUrl: string): string | undefined {
  return decodeQr(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
}
