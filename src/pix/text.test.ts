import test from 'ava';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { payerText, stripBidiControls, truncateText } from './text.ts';
import { buildDynamicPix, parseBrCode } from './brcode.ts';

const BIDI = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
];
const codePoints = (s: string) => [...s].length;

test('every bidi control is stripped; other text, Arabic and Hebrew included, is kept', (t) => {
  t.is(stripBidiControls(`Pedido ${BIDI.join('')}123`), 'Pedido 123');
  t.is(stripBidiControls('Pedido \u202Egnp.exe'), 'Pedido gnp.exe');
  t.is(stripBidiControls('طلب 12 — הזמנה ✓ São Paulo 😀'), 'طلب 12 — הזמנה ✓ São Paulo 😀');
  t.is(payerText('\u2067ABC\u2069 \u200Fx', 140), 'ABC x');
});

test('truncation counts code points and cuts between whole characters', (t) => {
  const a = (n: number) => 'a'.repeat(n);
  t.is(truncateText(`${a(139)}😀`, 140), `${a(139)}😀`, 'an emoji is one code point of two UTF-16 units');
  t.is(truncateText(`${a(140)}😀`, 140), a(140));
  t.is(truncateText(`${a(139)}😀x`, 140), `${a(139)}😀`);
  // `slice(0, 140)` would have kept the high surrogate of 😀 alone
  t.is(truncateText(`${a(139)}😀😀`, 140), `${a(139)}😀`);
  t.false(`${a(139)}😀😀`.slice(0, 140).isWellFormed());
  // a cluster that does not fit goes whole: no thumb without its skin tone, no "e" without its accent, no half flag
  t.is(truncateText(`${a(139)}👍🏽`, 140), a(139));
  t.is(truncateText(`${a(139)}e\u0301`, 140), a(139));
  t.is(truncateText(`${a(139)}🇧🇷`, 140), a(139));
  t.is(truncateText(`${a(136)}👨‍👩‍👧`, 140), a(136));
  t.is(truncateText(`${a(135)}👨‍👩‍👧`, 140), `${a(135)}👨‍👩‍👧`);
  // a crafted cluster longer than the limit is cut between code points
  const zalgo = `z${'\u0301'.repeat(200)}`;
  t.is(truncateText(zalgo, 140), zalgo.slice(0, 140));
  t.is(payerText(`\u202E${a(140)}`, 140), a(140), 'stripped first, so a control never costs a character');
});

test('property: the result is a well-formed prefix of the stripped text, within the limit, without bidi controls', (t) => {
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 80 }),
    fc.string({ unit: fc.constantFrom('a', ' ', 'é', 'e\u0301', '😀', '👍🏽', '🇧🇷', '👨‍👩‍👧', ...BIDI), maxLength: 80 }),
  );
  t.notThrows(() =>
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 90 }), (s, max) => {
        const out = payerText(s, max);
        const clean = stripBidiControls(s);
        assert.ok(clean.startsWith(out));
        assert.ok(codePoints(out) <= max);
        assert.ok(out.isWellFormed());
        assert.ok(!BIDI.some((c) => out.includes(c)));
        if (codePoints(clean) <= max) assert.equal(out, clean);
        // nothing that would still fit is dropped: the next cluster is longer than what is left
        else if (out.length < clean.length) {
          const next = [
            ...new Intl.Segmenter('pt-BR', { granularity: 'grapheme' }).segment(clean.slice(out.length)),
          ][0];
          assert.ok(codePoints(out) + codePoints(next.segment) > max || out === '');
        }
      }),
      { numRuns: 300 },
    ),
  );
});

test('the BR Code never carries a bidi control in the merchant name or city', (t) => {
  const payload = buildDynamicPix({
    location: 'pix.example.com/qr/abc',
    merchantName: 'Loja \u202Eetset\u202C Boa',
    merchantCity: '\u2067São Paulo\u2069',
  });
  const parsed = parseBrCode(payload);
  t.is(parsed.fields['59'], 'Loja etset Boa');
  t.is(parsed.fields['60'], 'Sao Paulo');
});
