// Tests of the API Pix adapter's conversions between centavos and the PSP's decimal reais.
import test from 'ava';
import { fromJsonNumber, fromWire, MAX_CENTAVOS, toWire } from './money.ts';
import { createTokenCache } from './token.ts';

test('centavos become the standard decimal string and back, exactly', (t) => {
  const pairs: [number, string][] = [
    [0, '0.00'],
    [1, '0.01'],
    [10, '0.10'],
    [1050, '10.50'],
    [100, '1.00'],
    [1_234_567_890, '12345678.90'],
    [MAX_CENTAVOS, '9999999999.99'],
  ];
  for (const [cents, wire] of pairs) {
    t.is(toWire(cents), wire);
    t.is(fromWire(wire), cents);
  }
  // Amounts where float arithmetic goes wrong (0.29 * 100 = 28.999999999999996; 1.005 * 100 = 100.49999999999999).
  t.is(fromWire('0.29'), 29);
  t.is(fromWire('1.01'), 101);
  t.is(fromWire('4.35'), 435);
  t.is(fromWire('0010.50'), 1050);
});

test('toWire refuses anything but an integer number of centavos in range', (t) => {
  for (const bad of [10.5, 0.1, -1, Number.NaN, Number.POSITIVE_INFINITY, MAX_CENTAVOS + 1, 2 ** 53]) {
    t.throws(() => toWire(bad), { instanceOf: RangeError }, String(bad));
  }
  t.throws(() => toWire('1050' as unknown as number), { instanceOf: RangeError });
});

test('fromWire refuses every shape but ^\\d{1,10}\\.\\d{2}$', (t) => {
  for (const bad of [
    '10.5',
    '10',
    '10.',
    '.50',
    '1.234',
    ' 1.00',
    '1.00 ',
    '1,00',
    '+1.00',
    '-1.00',
    '1e3',
    '12345678901.00',
    '',
    'NaN',
    '１.００',
  ]) {
    t.throws(() => fromWire(bad), { instanceOf: RangeError }, JSON.stringify(bad));
  }
  for (const bad of [10.5, 1050, null, undefined, { original: '1.00' }])
    t.throws(() => fromWire(bad), { instanceOf: RangeError });
});

test('fromJsonNumber reads the decimal text of a JSON number, never multiplying a double', (t) => {
  t.is(fromJsonNumber(10.5), 1050);
  t.is(fromJsonNumber(0.29), 29);
  t.is(fromJsonNumber(12345678.9), 1_234_567_890);
  t.is(fromJsonNumber(7), 700);
  t.is(fromJsonNumber(JSON.parse('1.10')), 110);
  t.throws(() => fromJsonNumber(0.1 + 0.2), { instanceOf: RangeError }); // 0.30000000000000004: not an amount
  t.throws(() => fromJsonNumber(1.234), { instanceOf: RangeError });
  t.throws(() => fromJsonNumber(-1), { instanceOf: RangeError });
  t.throws(() => fromJsonNumber('10.50'), { instanceOf: RangeError });
});

test('the token cache renews a margin before expiry, at half-life for short tokens, once for concurrent callers', async (t) => {
  let clock = 0;
  let issued = 0;
  let slow = false; // the renewal below stays in flight until all three callers asked
  let release: () => void = () => {};
  const cache = createTokenCache({
    now: () => clock,
    marginMs: 60_000,
    issue: async () => {
      issued++;
      if (slow)
        await new Promise<void>((r) => {
          release = r;
        });
      return { accessToken: `t${issued}`, expiresIn: 3600 };
    },
  });
  t.is(await cache.get(), 't1');
  clock = 3_539_999; // 60 s and 1 ms before expiry: still good
  t.is(await cache.get(), 't1');
  clock = 3_540_000;
  slow = true;
  const all = Promise.all([cache.get(), cache.get(), cache.get()]);
  release();
  slow = false;
  t.deepEqual(await all, ['t2', 't2', 't2']);
  t.is(issued, 2);
  cache.invalidate('t1'); // a stale token's 401 does not throw away the fresh one
  t.is(await cache.get(), 't2');
  cache.invalidate('t2');
  t.is(await cache.get(), 't3');

  const short = createTokenCache({
    now: () => clock,
    marginMs: 60_000,
    issue: async () => ({ accessToken: String(clock), expiresIn: 30 }),
  });
  clock = 0;
  t.is(await short.get(), '0');
  clock = 14_999;
  t.is(await short.get(), '0'); // a 30 s token is used for 15 s, not renewed on every call
  clock = 15_000;
  t.is(await short.get(), '15000');
});

test('a failed token request is not cached: the next caller asks again', async (t) => {
  let attempts = 0;
  const cache = createTokenCache({
    issue: async () => {
      if (++attempts === 1) throw new Error('down');
      return { accessToken: 'ok', expiresIn: 3600 };
    },
  });
  await t.throwsAsync(cache.get(), { message: 'down' });
  t.is(await cache.get(), 'ok');
  t.is(attempts, 2);
});
