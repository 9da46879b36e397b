// Tests of the QR code matrix against the qrcode package.
import test from 'ava';
import QRCode, { type QRCodeMaskPattern, type QRCodeSegment } from 'qrcode';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { qrMatrix, segments } from './qr-matrix.ts';
import { buildDynamicPix } from './brcode.ts';

test('qrMatrix picks the same mask and modules as QRCode.create with the same segments', (t) => {
  const payloads = ['hello', 'HELLO WORLD 123', 'x'.repeat(300)];
  for (let i = 0; i < 150; i++) {
    payloads.push(
      buildDynamicPix({
        location: `pix.example.com.br/pix/qr/${randomBytes(16).toString('hex')}`,
        amountCents: 1 + Math.floor(Math.random() * 1e9),
        merchantName: `Loja ${randomBytes(6).toString('base64url')}`,
        merchantCity: 'SAO PAULO',
      }),
    );
    payloads.push(randomBytes(10 + (i % 120)).toString('base64'));
  }
  for (const p of payloads) {
    const ref = QRCode.create(segments(p) as unknown as QRCodeSegment[], { errorCorrectionLevel: 'M' });
    const mine = qrMatrix(p);
    t.is(mine.size, ref.modules.size);
    if (mine.maskPattern !== ref.maskPattern || !Buffer.from(mine.data).equals(Buffer.from(ref.modules.data))) {
      return t.fail(`differs for ${p}: mask ${mine.maskPattern} vs ${ref.maskPattern}`);
    }
  }
  t.pass();
});

test("the bit-parallel mask scores equal qrcode's own N1-N4 penalties for every mask, at every size used", (t) => {
  const require = createRequire(import.meta.url);
  const Mask = require('qrcode/lib/core/mask-pattern.js') as Record<
    'getPenaltyN1' | 'getPenaltyN2' | 'getPenaltyN3' | 'getPenaltyN4',
    (m: unknown) => number
  >;
  const payloads = ['a', 'HELLO WORLD', 'x'.repeat(100), 'y'.repeat(700), '9'.repeat(2000)];
  for (let i = 0; i < 40; i++) payloads.push(randomBytes(5 + i * 7).toString('base64'));
  const sizes = new Set<number>();
  for (const p of payloads) {
    const mine = qrMatrix(p);
    sizes.add(mine.size);
    const theirs = Array.from({ length: 8 }, (_, mask) => {
      const m = QRCode.create(segments(p) as unknown as QRCodeSegment[], {
        errorCorrectionLevel: 'M',
        maskPattern: mask as QRCodeMaskPattern,
      }).modules;
      return Mask.getPenaltyN1(m) + Mask.getPenaltyN2(m) + Mask.getPenaltyN3(m) + Mask.getPenaltyN4(m);
    });
    if (JSON.stringify(mine.penalties) !== JSON.stringify(theirs))
      return t.fail(`${p.length} chars: ${mine.penalties} vs ${theirs}`);
  }
  t.true(sizes.size >= 10, `sizes covered: ${[...sizes].sort((a, b) => a - b).join(', ')}`);
  t.log(`sizes covered: ${[...sizes].sort((a, b) => a - b).join(', ')}`);
});

test("the cheap segmentation costs BR Codes at most one symbol version over qrcode's optimal one", (t) => {
  let bigger = 0;
  for (let i = 0; i < 200; i++) {
    const p = buildDynamicPix({
      location: `pix.example.com.br/pix/qr/${randomBytes(16).toString('hex')}`,
      amountCents: 1 + Math.floor(Math.random() * 1e9),
      merchantName: 'Padaria Pão Quente',
      merchantCity: 'SAO PAULO',
    });
    const extra = qrMatrix(p).size - QRCode.create(p, { errorCorrectionLevel: 'M' }).modules.size;
    t.true(extra <= 4, p); // one version = 4 modules more per side
    if (extra > 0) bigger++;
  }
  t.log(`${bigger}/200 payloads took one version more`);
});

test('segments cover the payload exactly, digits-only and empty-run cases included', (t) => {
  for (const p of ['123456789', 'abc', 'abc123456789def', '000201010212', '1'.repeat(8) + 'x']) {
    t.is(
      segments(p)
        .map((s) => s.data)
        .join(''),
      p,
    );
  }
  t.deepEqual(segments('ab123456789'), [
    { data: 'ab', mode: 'byte' },
    { data: '123456789', mode: 'numeric' },
  ]);
});
