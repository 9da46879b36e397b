import test from 'ava';
import QRCode, { type QRCodeSegment } from 'qrcode';
import { randomBytes } from 'node:crypto';
import { qrMatrix, segments } from './qr-matrix.ts';
import { buildDynamicPix } from './brcode.ts';

test('qrMatrix picks the same mask and modules as QRCode.create with the same segments', (t) => {
  const payloads = ['hello', 'HELLO WORLD 123', 'x'.repeat(300)];
  for (let i = 0; i < 150; i++) {
    payloads.push(buildDynamicPix({
      location: `pix.example.com.br/pix/qr/${randomBytes(16).toString('hex')}`, amountCents: 1 + Math.floor(Math.random() * 1e9),
      merchantName: `Loja ${randomBytes(6).toString('base64url')}`, merchantCity: 'SAO PAULO',
    }));
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

test('the cheap segmentation costs BR Codes at most one symbol version over qrcode\'s optimal one', (t) => {
  let bigger = 0;
  for (let i = 0; i < 200; i++) {
    const p = buildDynamicPix({
      location: `pix.example.com.br/pix/qr/${randomBytes(16).toString('hex')}`, amountCents: 1 + Math.floor(Math.random() * 1e9),
      merchantName: 'Padaria Pão Quente', merchantCity: 'SAO PAULO',
    });
    const extra = qrMatrix(p).size - QRCode.create(p, { errorCorrectionLevel: 'M' }).modules.size;
    t.true(extra <= 4, p); // one version = 4 modules more per side
    if (extra > 0) bigger++;
  }
  t.log(`${bigger}/200 payloads took one version more`);
});

test('segments cover the payload exactly, digits-only and empty-run cases included', (t) => {
  for (const p of ['123456789', 'abc', 'abc123456789def', '000201010212', '1'.repeat(8) + 'x']) {
    t.is(segments(p).map((s) => s.data).join(''), p);
  }
  t.deepEqual(segments('ab123456789'), [{ data: 'ab', mode: 'byte' }, { data: '123456789', mode: 'numeric' }]);
});
