// Tests of the BR Code codec against published payloads.
import test from 'ava';
import {
  FALLBACK_MERCHANT_NAME,
  buildDynamicPix,
  buildStaticPix,
  crc16,
  formatAmount,
  normalizeText,
  parseBrCode,
  tlv,
} from './brcode.ts';

// Published example payloads. Every one was checked with crc16() (see the first tests),
// so a failure here means our code changed, not that the sample is wrong.

// Manual de Padrões para Iniciação do Pix (Banco Central), static QR example.
const MANUAL_STATIC =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
// Same manual, dynamic QR example (no field 54: the amount lives in the location payload).
const MANUAL_DYNAMIC =
  '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4';
// Real PSP payloads from public API docs/sandboxes: PagSeguro (two merchant templates,
// MCC and amount), Banco Inter sandbox (upper-case GUI, field 61) and Asaas (cobv).
const PAGSEGURO =
  '00020101021226830014br.gov.bcb.pix2561api.pagseguro.com/pix/v2/8D7D27E8-7167-4289-A1A7-90A18A26C12627600016BR.COM.PAGSEGURO01368D7D27E8-7167-4289-A1A7-90A18A26C12652048299530398654041.005802BR5922JUSTUTOR EDUCACAO LTDA6010Uberlandia62070503***6304CB09';
const INTER_SANDBOX =
  '00020101021226960014BR.GOV.BCB.PIX2574cdpj-sandbox.partners.uatinter.co/pj-s/v2/96382fbb70ad4a628b011163d6bac7985204000053039865802BR5901*6013BELO HORIZONT61089999999962070503***6304F157';
const ASAAS =
  '00020101021226800014br.gov.bcb.pix2558pix.asaas.com/qr/cobv/eb168d2e-b37d-4fee-8dc0-1ea198a1179f5204000053039865802BR5925CLARA INSTITUICAO DE PAGA6009Sao Paulo61080453000062070503***6304DFDD';

const PUBLISHED = { MANUAL_STATIC, MANUAL_DYNAMIC, PAGSEGURO, INTER_SANDBOX, ASAAS };

// Small deterministic PRNG so the "random" round trips are reproducible.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('crc16 is CRC16/CCITT-FALSE: check value of "123456789" is 29B1', (t) => {
  t.is(crc16('123456789'), '29B1');
  t.is(crc16(''), 'FFFF'); // init value, no xorout
  t.is(crc16('A'), 'B915');
});

test('published payloads carry a CRC that our crc16 reproduces', (t) => {
  for (const [name, payload] of Object.entries(PUBLISHED)) {
    t.is(crc16(payload.slice(0, -4)), payload.slice(-4), name);
    t.true(parseBrCode(payload).crcValid, name);
  }
});

test('buildStaticPix reproduces the manual static example exactly', (t) => {
  const built = buildStaticPix({
    key: '123e4567-e12b-12d1-a456-426655440000',
    merchantName: 'Fulano de Tal',
    merchantCity: 'BRASILIA',
  });
  t.is(built, MANUAL_STATIC);
  const parsed = parseBrCode(built);
  t.true(parsed.crcValid);
  t.deepEqual(parsed.merchantAccount, { '00': 'br.gov.bcb.pix', '01': '123e4567-e12b-12d1-a456-426655440000' });
  t.deepEqual(parsed.additionalData, { '05': '***' });
  t.is(parsed.fields['59'], 'Fulano de Tal');
  t.is(parsed.fields['60'], 'BRASILIA');
  t.false('54' in parsed.fields); // no amount in the manual's example
});

test('buildDynamicPix reproduces the manual dynamic example exactly (scheme stripped, no amount)', (t) => {
  const built = buildDynamicPix({
    location: 'https://pix.example.com/8b3da2f39a4140d1a91abd93113bd441',
    merchantName: 'Fulano de Tal',
    merchantCity: 'BRASILIA',
  });
  t.is(built, MANUAL_DYNAMIC);
  const parsed = parseBrCode(built);
  t.true(parsed.crcValid);
  t.is(parsed.fields['01'], '12');
  t.is(parsed.merchantAccount['25'], 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441');
});

test('buildDynamicPix emits every field of a dynamic charge, in order', (t) => {
  const built = buildDynamicPix({
    location: 'http://pix.example.com/qr/v2/abc',
    amountCents: 1050,
    merchantName: 'Loja',
    merchantCity: 'Recife',
    txid: 'a'.repeat(26),
  });
  const body =
    '000201' +
    '010212' +
    '2647' +
    '0014br.gov.bcb.pix' +
    '2525pix.example.com/qr/v2/abc' +
    '52040000' +
    '5303986' +
    '540510.50' +
    '5802BR' +
    '5904Loja' +
    '6006Recife' +
    '62070503***' +
    '6304';
  t.is(built, body + crc16(body));
});

test('parseBrCode splits real PSP payloads into their templates', (t) => {
  const pag = parseBrCode(PAGSEGURO);
  t.is(pag.merchantAccount['25'], 'api.pagseguro.com/pix/v2/8D7D27E8-7167-4289-A1A7-90A18A26C126');
  t.is(pag.templates['27']?.['00'], 'BR.COM.PAGSEGURO'); // a second, non-PIX merchant template
  t.is(pag.fields['52'], '8299');
  t.is(pag.fields['54'], '1.00');
  const inter = parseBrCode(INTER_SANDBOX);
  t.is(inter.merchantAccount['00'], 'BR.GOV.BCB.PIX'); // GUI is matched case-insensitively
  t.is(inter.fields['61'], '99999999');
  t.is(parseBrCode(ASAAS).fields['59'], 'CLARA INSTITUICAO DE PAGA');
});

test('normalizeText strips accents, keeps case, collapses whitespace, transliterates and drops symbols', (t) => {
  t.is(normalizeText('São Paulo', 15), 'Sao Paulo');
  t.is(normalizeText('  Açaí \t da\n Conceição  ', 25), 'Acai da Conceicao');
  t.is(normalizeText('Café 😀 Ñandú ß', 25), 'Cafe Nandu ss');
  t.is(normalizeText('Nº 1º ﬁm m²', 25), 'No 1o fim m2'); // compatibility forms fold to ASCII too
  t.is(normalizeText('ab cd', 3), 'ab'); // no trailing space left by the cut
  t.is(normalizeText('日本', 25), 'RiBen');
  t.is(normalizeText('Мой магазин', 25), 'Moi magazin');
  t.is(normalizeText('😀🍕 ✨', 25), '');
});

test('a merchant name with nothing printable left still yields a valid BR Code, under the fallback name', (t) => {
  for (const merchantName of ['😀🍕', '日本語の店', '\u200f\u202e', ' ']) {
    const code = buildDynamicPix({
      location: 'pix.example.com/qr/v2/abc',
      amountCents: 100,
      merchantName,
      merchantCity: '東京',
      txid: 'a'.repeat(26),
    });
    const { fields, crcValid } = parseBrCode(code);
    t.true(crcValid);
    t.regex(String(fields['59']), /^[\x20-\x7E]{1,25}$/);
    t.regex(String(fields['60']), /^[\x20-\x7E]{1,15}$/);
  }
  t.is(
    parseBrCode(
      buildDynamicPix({ location: 'x.example/q', merchantName: '😀', merchantCity: 'Recife', txid: 'b'.repeat(26) }),
    ).fields['59'],
    FALLBACK_MERCHANT_NAME,
  );
});

test('merchant name is truncated to 25 and city to 15, accents stripped', (t) => {
  const payload = buildDynamicPix({
    location: 'pix.example.com/qr/1',
    amountCents: 100,
    merchantName: 'Padaria e Confeitaria São João da Barra',
    merchantCity: 'São José dos Campos',
  });
  const { fields } = parseBrCode(payload);
  t.is(fields['59'], 'Padaria e Confeitaria Sao');
  t.is(fields['60'], 'Sao Jose dos Ca');
  t.is(
    parseBrCode(buildStaticPix({ key: 'k', merchantName: 'x', merchantCity: 'São Paulo' })).fields['60'],
    'Sao Paulo',
  );
});

test('TLV lengths are exact for multi-byte input after normalisation', (t) => {
  const name = 'Ção Ñoño Müller Ærø Ωmega';
  const payload = buildStaticPix({
    key: 'fulano@example.com',
    merchantName: name,
    merchantCity: 'Brasília',
    description: 'Pedido nº 42 — obrigado!',
  });
  t.is(Buffer.byteLength(payload, 'utf8'), payload.length); // pure ASCII: chars == bytes
  const { fields, merchantAccount } = parseBrCode(payload); // parse would throw on any wrong length
  const expected = normalizeText(name, 25);
  t.is(fields['59'], expected);
  t.true(payload.includes('59' + String(expected.length).padStart(2, '0') + expected));
  t.is(merchantAccount['02'], 'Pedido no 42 - obrigado!');
  t.is(fields['60'], 'Brasilia');
});

test('tlv pads lengths to 2 digits and rejects what it cannot encode', (t) => {
  t.is(tlv('05', '***'), '0503***');
  t.is(tlv('26', 'x'.repeat(99)), '2699' + 'x'.repeat(99));
  t.throws(() => tlv('26', 'x'.repeat(100)), { instanceOf: RangeError });
  t.throws(() => tlv('59', ''), { instanceOf: RangeError });
  t.throws(() => tlv('59', 'São'), { instanceOf: RangeError });
  t.throws(() => tlv('5', 'a'), { instanceOf: RangeError });
});

test('amounts are formatted from integer cents without float error', (t) => {
  t.is(formatAmount(1), '0.01');
  t.is(formatAmount(10), '0.10');
  t.is(formatAmount(100), '1.00');
  t.is(formatAmount(1050), '10.50');
  t.is(formatAmount(123456), '1234.56');
  t.is(formatAmount(999_999_999_999), '9999999999.99'); // 13 chars, the field 54 maximum
  for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53]) t.throws(() => formatAmount(bad), { instanceOf: RangeError });
  t.throws(() => formatAmount(1_000_000_000_000), { instanceOf: RangeError }); // 14 chars
  const { fields } = parseBrCode(
    buildDynamicPix({ location: 'p.example/1', amountCents: 7, merchantName: 'a', merchantCity: 'b' }),
  );
  t.is(fields['54'], '0.07');
});

test('round trip build -> parse for random dynamic and static inputs', (t) => {
  const rnd = prng(20240101);
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 áéíóúãõâêôçÁÉÍÓÚÃÕÇñü&-./'";
  const text = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  for (let i = 0; i < 300; i++) {
    const amountCents = 1 + Math.floor(rnd() * 100_000_000);
    const merchantName = text(1 + Math.floor(rnd() * 40)) + 'x'; // never empty after normalisation
    const merchantCity = 'y' + text(Math.floor(rnd() * 30));
    const host = `pix${i}.example.com/qr/v2/${hex(32)}`;
    const dyn = buildDynamicPix({ location: `https://${host}`, amountCents, merchantName, merchantCity });
    const p = parseBrCode(dyn);
    t.true(p.crcValid);
    t.is(p.fields['01'], '12');
    t.is(p.merchantAccount['00'], 'br.gov.bcb.pix');
    t.is(p.merchantAccount['25'], host);
    t.is(p.fields['54'], formatAmount(amountCents));
    t.is(p.fields['54'], (amountCents / 100).toFixed(2)); // cross-check against float formatting
    t.is(p.fields['59'], normalizeText(merchantName, 25));
    t.is(p.fields['60'], normalizeText(merchantCity, 15));
    t.deepEqual(p.additionalData, { '05': '***' });

    const key = crypto.randomUUID();
    const txid = hex(1 + Math.floor(rnd() * 25));
    const st = parseBrCode(
      buildStaticPix({ key, amountCents, merchantName, merchantCity, txid, description: text(30) }),
    );
    t.true(st.crcValid);
    t.is(st.merchantAccount['01'], key);
    t.is(st.additionalData['05'], txid);
  }
});

test('buildDynamicPix / buildStaticPix reject inputs that cannot form a valid BR Code', (t) => {
  const base = { amountCents: 100, merchantName: 'Loja', merchantCity: 'Recife' };
  // Template 26 holds at most 99 chars: 18 for the GUI + 4 header + 77 of URL.
  t.notThrows(() => buildDynamicPix({ ...base, location: 'x'.repeat(77) }));
  t.throws(() => buildDynamicPix({ ...base, location: 'x'.repeat(78) }), { instanceOf: RangeError });
  t.throws(() => buildDynamicPix({ ...base, location: 'p.example/1', txid: 'short' }), { instanceOf: RangeError });
  t.throws(() => buildStaticPix({ ...base, key: 'k', txid: 'has-dash' }), { instanceOf: RangeError });
  t.throws(() => buildStaticPix({ ...base, key: 'k', txid: 'a'.repeat(26) }), { instanceOf: RangeError });
  // A long description is cut to whatever room template 26 has left.
  const p = parseBrCode(buildStaticPix({ ...base, key: crypto.randomUUID(), description: 'd'.repeat(200) }));
  t.is(p.fields['26']!.length, 99);
});

test('malformed payloads throw', (t) => {
  const bad = [
    '',
    '0002',
    MANUAL_STATIC.slice(0, -1), // truncated CRC
    MANUAL_STATIC.slice(0, -8), // no CRC field at all
    MANUAL_STATIC.replace('5913Fulano', '5919Fulano'), // length overruns into the next fields
    MANUAL_STATIC.replace('5802BR', '58x2BR'), // non-digit length
    MANUAL_STATIC.replace('000201', '000202'), // payload format indicator must be 01
    MANUAL_STATIC.replace('0014br.gov', '0015br.gov'), // broken TLV inside template 26
    MANUAL_STATIC.replace('Fulano', 'Fulanõ'), // non-ASCII
    MANUAL_STATIC.replace('5802BR', '5802BR5802BR'), // duplicate field 58
  ];
  for (const payload of bad) t.throws(() => parseBrCode(payload), { instanceOf: SyntaxError }, payload);
});

test('a tampered payload parses but has crcValid false', (t) => {
  const tampered = MANUAL_STATIC.replace('Fulano de Tal', 'Fulano de Tau');
  t.false(parseBrCode(tampered).crcValid);
  t.false(parseBrCode(MANUAL_STATIC.slice(0, -4) + '1D3E').crcValid);
  t.false(parseBrCode(MANUAL_DYNAMIC.replace('8b3da2f3', '8b3da2f4')).crcValid);
  t.true(parseBrCode(MANUAL_STATIC.slice(0, -4) + '1d3d').crcValid); // hex case is not significant
});
