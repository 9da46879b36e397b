// Tests of the QR code PNG: its quiet zone, finder patterns and modules.
import test from 'ava';
import { inflateSync } from 'node:zlib';
import { buildDynamicPix, buildStaticPix } from './brcode.ts';
import { qrPngBuffer, qrPngDataUrl } from './qr-png.ts';
import { qrMatrix } from './qr-matrix.ts';
import { decodeQr, PNG } from '../../test/support/qr.ts';

const LONG_DYNAMIC = buildDynamicPix({
  location: 'https://qrcodes-pix.example-psp.com.br/v2/cob/9d36b84fc70b478fb95c12729b90ca25',
  amountCents: 123456,
  merchantName: 'Padaria e Confeitaria São João da Barra',
  merchantCity: 'São José dos Campos',
});

const PAYLOADS = {
  short: 'hello',
  manualStatic: buildStaticPix({
    key: '123e4567-e12b-12d1-a456-426655440000',
    merchantName: 'Fulano de Tal',
    merchantCity: 'BRASILIA',
  }),
  staticWithAmount: buildStaticPix({
    key: '+5511999999999',
    amountCents: 1050,
    merchantName: 'Ana',
    merchantCity: 'Recife',
    txid: 'PEDIDO42',
    description: 'Pedido 42',
  }),
  longDynamic: LONG_DYNAMIC,
  maxLocation: buildDynamicPix({
    location: 'x'.repeat(77),
    amountCents: 999_999_999_999,
    merchantName: 'N'.repeat(40),
    merchantCity: 'C'.repeat(40),
  }),
};

test('the long dynamic sample really is ~180+ characters', (t) => {
  t.true(LONG_DYNAMIC.length >= 175, String(LONG_DYNAMIC.length));
});

for (const [name, payload] of Object.entries(PAYLOADS)) {
  test(`PNG decodes and scans back to the exact payload: ${name}`, (t) => {
    t.is(decodeQr(qrPngBuffer(payload)), payload);
  });
}

test('data URL is a base64 PNG of exactly qrPngBuffer', (t) => {
  const url = qrPngDataUrl(LONG_DYNAMIC);
  t.true(url.startsWith('data:image/png;base64,'));
  const png = Buffer.from(url.slice('data:image/png;base64,'.length), 'base64');
  t.deepEqual(png, qrPngBuffer(LONG_DYNAMIC));
  t.is(decodeQr(png), LONG_DYNAMIC);
});

test('IHDR is 1-bit grayscale and the size is (modules + 2*4) * 6', (t) => {
  const png = qrPngBuffer(LONG_DYNAMIC);
  t.deepEqual(png.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  t.is(png.toString('latin1', 12, 16), 'IHDR');
  const modules = qrMatrix(LONG_DYNAMIC).size;
  t.is(png.readUInt32BE(16), (modules + 8) * 6); // width
  t.is(png.readUInt32BE(20), (modules + 8) * 6); // height
  t.is(png[24], 1); // bit depth
  t.is(png[25], 0); // color type: grayscale
  t.is(png.toString('latin1', png.length - 8, png.length - 4), 'IEND');
});

test('quiet zone of 4 modules is white on every side, and black is 0 in the raw bits', (t) => {
  const png = qrPngBuffer(LONG_DYNAMIC);
  const { width, height, data } = PNG.sync.read(png);
  const quiet = 4 * 6;
  const white = (x: number, y: number) => data[(y * width + x) * 4] === 255;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inMargin = x < quiet || y < quiet || x >= width - quiet || y >= height - quiet;
      if (inMargin && !white(x, y)) return t.fail(`pixel ${x},${y} in the quiet zone is not white`);
    }
  }
  // The top-left finder pattern starts right after the quiet zone and is dark.
  t.false(white(quiet, quiet));
  t.false(white(quiet + 5, quiet + 5));
  // Raw IDAT: first row is filter 0 with all bits set (white = 1).
  const idatLen = png.readUInt32BE(33);
  t.is(png.toString('latin1', 37, 41), 'IDAT');
  const raw = inflateSync(png.subarray(41, 41 + idatLen));
  t.is(raw[0], 0);
  t.true(raw.subarray(1, 1 + Math.floor(width / 8)).every((b) => b === 0xff));
});

test('scale and margin options are honoured and still scan', (t) => {
  const png = qrPngBuffer(LONG_DYNAMIC, { scale: 3, margin: 2 });
  const modules = qrMatrix(LONG_DYNAMIC).size;
  t.is(png.readUInt32BE(16), (modules + 4) * 3);
  t.is(decodeQr(png), LONG_DYNAMIC);
  t.throws(() => qrPngBuffer('x', { scale: 0 }), { instanceOf: RangeError });
  t.throws(() => qrPngBuffer('x', { scale: 2.5 }), { instanceOf: RangeError });
});
