// Tests of the BR Code's text fields: cut without breaking a character.
import test from 'ava';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { payerText, stripFormatChars, truncateText } from './text.ts';
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
  t.is(stripFormatChars(`Pedido ${BIDI.join('')}123`), 'Pedido 123');
  t.is(stripFormatChars('Pedido \u202Egnp.exe'), 'Pedido gnp.exe');
  t.is(stripFormatChars('طلب 12 — הזמנה ✓ São Paulo 😀'), 'طلب 12 — הזמנה ✓ São Paulo 😀');
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
        const clean = stripFormatChars(s);
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

// ---- format characters (General_Category Cf) ----

const CF = /\p{Cf}/u;
// What may stay of a Cf: a ZWJ between two pictographs (emoji ZWJ sequence) or the tags of an emoji flag sequence.
const KEPT =
  /\p{Extended_Pictographic}(?:\u{FE0E}|\u{FE0F}|\p{Emoji_Modifier})*\u200D(?=\p{Extended_Pictographic})|\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,8}\u{E007F}/gu;
const withoutCf = (s: string) => [...s].filter((c) => !CF.test(c)).join('');
const SCOTLAND = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}';

test('format characters go: zero-width, soft hyphen, BOM, word joiner, tags, Arabic number signs; emoji stay whole', (t) => {
  t.is(stripFormatChars('Pe\u200Bdi\u200Cdo\u200D 1\u00AD2\uFEFF3\u2060'), 'Pedido 123');
  t.is(stripFormatChars('a\u2061b\u2062c\u2063d\u2064e\u180Ef\u206Ag\uFFF9h'), 'abcdefgh');
  t.is(stripFormatChars('\u0600123 \u06DD1'), '123 1');
  // hidden text spelt with tag characters ("ASCII smuggling")
  t.is(stripFormatChars('Pedido\u{E0069}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}'), 'Pedido');
  t.is(stripFormatChars('ok\u{E0001}'), 'ok');
  // emoji ZWJ sequences, skin tones and flags are unchanged
  for (const emoji of ['👨‍👩‍👧', '🏳️‍🌈', '👩🏽‍💻', '🧑‍🦰', '🏴‍☠️', '❤️‍🔥', '👁️‍🗨️', SCOTLAND, '🇧🇷', '1️⃣', '👍🏽'])
    t.is(stripFormatChars(`Pedido ${emoji}!`), `Pedido ${emoji}!`, emoji);
  // a joiner that joins no pictographs goes
  t.is(stripFormatChars('a\u200D😀 😀\u200Db 😀\u200D\u200D😀 😀\u200B\u200D😀'), 'a😀 😀b 😀😀 😀😀');
  // a tag sequence that is no flag goes, the black flag stays
  t.is(stripFormatChars('\u{1F3F4}\u{E0067}\u{E0062}'), '\u{1F3F4}');
  t.is(payerText(`\u200B${'a'.repeat(140)}`, 140), 'a'.repeat(140), 'stripped first, never costs a character');
});

test('property: nothing of category Cf is left but the emoji joiners, the rest of the text is kept in order, idempotent', (t) => {
  const piece = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 4 }),
    fc.constantFrom(
      ...BIDI,
      '\u200B',
      '\u200C',
      '\u200D',
      '\u00AD',
      '\uFEFF',
      '\u2060',
      '\u0600',
      '\u{E0067}',
      '\u{E007F}',
      '\u{1F3F4}',
      '\uFE0F',
      '\u{1F3FD}',
      '😀',
      '👩',
      'a',
      ' ',
      'é',
      SCOTLAND,
      '👨‍👩‍👧',
    ),
  );
  const text = fc.array(piece, { maxLength: 20 }).map((parts) => parts.join(''));
  t.notThrows(() =>
    fc.assert(
      fc.property(text, (s) => {
        const out = stripFormatChars(s);
        assert.ok(!CF.test(out.replace(KEPT, (m) => withoutCf(m))), `a Cf left in ${JSON.stringify(out)}`);
        assert.equal(withoutCf(out), withoutCf(s), 'everything else kept, in order');
        assert.equal(stripFormatChars(out), out, 'idempotent');
        if (!CF.test(s)) assert.equal(out, s, 'text without Cf unchanged');
      }),
      { numRuns: 2000 },
    ),
  );
});
