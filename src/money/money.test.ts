// Properties of src/money/money.ts (round half up, basis points, the platform fee and its terms), and proof that it gives
// the same numbers as the implementations it replaced, kept here as they were written.
import test from 'ava';
import fc from 'fast-check';
import { bpsOf, effectiveFee, platformFee, roundHalfUp } from './money.ts';
import { daysBetween } from './due-date-amounts.ts';
import { utcMidnight } from '../platform/dates.ts';

const INT4 = 2_147_483_647; // the amount columns

// round_half_up(n / d) by an independent route: the integer part and the remainder, half or more going up.
const reference = (n: bigint, d: bigint): bigint => (2n * (n % d) >= d ? n / d + 1n : n / d);

test('roundHalfUp: halves go up, the rest to the nearest', (t) => {
  t.is(roundHalfUp(5n, 10n), 1); // 0.5
  t.is(roundHalfUp(4n, 10n), 0); // 0.4
  t.is(roundHalfUp(15n, 10n), 2); // 1.5
  t.is(roundHalfUp(24_975n, 1000n), 25); // 24.975
  t.is(roundHalfUp(0n, 7n), 0);
  t.is(roundHalfUp(2n ** 62n, 2n ** 10n), 2 ** 52); // a product past 2^53, exactly
});

test('property: roundHalfUp matches a BigInt reference, also for numerators past 2^53', (t) => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 80n }), fc.bigInt({ min: 1n, max: 2n ** 40n }), (n, d) => {
      fc.pre(n / d < 2n ** 53n); // the result is a safe integer (every caller's is: an amount in centavos)
      return BigInt(roundHalfUp(n, d)) === reference(n, d);
    }),
    { numRuns: 5000 },
  );
  t.pass();
});

test('property: bpsOf is round_half_up(amount × bps × times / divisor)', (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 999_999_999_999 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.constantFrom(10_000, 300_000, 3_650_000),
      fc.integer({ min: 1, max: 4000 }),
      (amount, bps, divisor, times) =>
        BigInt(bpsOf(amount, bps, divisor, times)) ===
        reference(BigInt(amount) * BigInt(bps) * BigInt(times), BigInt(divisor)),
    ),
  );
  t.pass();
});

const feeTerms = fc.record({
  bps: fc.integer({ min: 0, max: 10_000 }),
  fixed: fc.integer({ min: 0, max: 100_000_000 }),
});

test('property: the platform fee is never above the amount nor below 0, and never falls as the amount grows', (t) => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: INT4 - 1 }), feeTerms, (amount, fee) => {
      const f = platformFee(amount, fee);
      return Number.isSafeInteger(f) && f >= 0 && f <= amount && platformFee(amount + 1, fee) >= f;
    }),
    { numRuns: 5000 },
  );
  t.pass();
});

test('the platform fee: fixed + round_half_up(amount × bps / 10000), at most the amount', (t) => {
  t.is(platformFee(10_000, { bps: 99, fixed: 0 }), 99);
  t.is(platformFee(50, { bps: 100, fixed: 0 }), 1); // 0.5 -> 1
  t.is(platformFee(49, { bps: 100, fixed: 0 }), 0); // 0.49 -> 0
  t.is(platformFee(100, { bps: 99, fixed: 30 }), 31);
  t.is(platformFee(20, { bps: 0, fixed: 30 }), 20); // never more than the amount
});

test("effectiveFee: the merchant's own terms where set, each part apart, else the platform's", (t) => {
  const platform = { bps: 99, fixed: 5 };
  t.deepEqual(effectiveFee({ feeBps: null, feeFixed: null }, platform), { bps: 99, fixed: 5 });
  t.deepEqual(effectiveFee({ feeBps: 0, feeFixed: null }, platform), { bps: 0, fixed: 5 });
  t.deepEqual(effectiveFee({ feeBps: 150, feeFixed: 0 }, platform), { bps: 150, fixed: 0 });
  t.deepEqual(effectiveFee({}, platform), { bps: 99, fixed: 5 });
});

// ---- the same numbers as before: the implementations this module replaced, as they were written ----

// src/merchants/merchants.service.ts
function oldPlatformFee(amount: number, fee: { bps: number; fixed: number }): number {
  const variable = Math.floor((amount * fee.bps + 5000) / 10000);
  return Math.min(amount, fee.fixed + variable);
}
// src/charges/splits.ts, src/refunds/split-shares.ts, src/refunds/refunds.money.ts (divRoundHalfUp) and
// src/charges/due-date.ts: the same expression four times
const oldRoundHalfUp = (n: bigint, d: bigint) => Number((2n * n + d) / (2n * d));
// src/charges/due-date.ts
const oldPercent = (base: number, bps: number, divisor: number, days = 1) =>
  oldRoundHalfUp(BigInt(base) * BigInt(bps) * BigInt(days), BigInt(divisor));
const oldDaysBetween = (from: string, to: string): number =>
  Math.round((utcMidnight(to) - utcMidnight(from)) / 86_400_000);

test('property: the platform fee as before, for every amount a charge can have and every fee merchant:fee sets', (t) => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: INT4 }), feeTerms, (amount, fee) => {
      return platformFee(amount, fee) === oldPlatformFee(amount, fee);
    }),
    { numRuns: 20_000 },
  );
  // the edges: the largest amount with the largest basis points, half a centavo exactly, nothing
  for (const [amount, bps] of [
    [INT4, 10_000],
    [INT4, 9_999],
    [50, 100],
    [0, 10_000],
    [1, 5_000],
  ])
    t.is(platformFee(amount, { bps, fixed: 0 }), oldPlatformFee(amount, { bps, fixed: 0 }));
  // past that too, while amount × bps stays a safe integer (the old one's floating point was exact up to there)
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: INT4 }),
      fc.integer({ min: 0, max: 4_000_000 }),
      (amount, bps) => platformFee(amount, { bps, fixed: 0 }) === oldPlatformFee(amount, { bps, fixed: 0 }),
    ),
    { numRuns: 20_000 },
  );
});

test('property: roundHalfUp and bpsOf as before (splits, refund shares, the refund fee, due-date percentages)', (t) => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 75n }), fc.bigInt({ min: 1n, max: 2n ** 40n }), (n, d) =>
      Object.is(roundHalfUp(n, d), oldRoundHalfUp(n, d)),
    ),
    { numRuns: 5000 },
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 999_999_999_999 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.constantFrom(10_000, 300_000, 3_650_000),
      fc.integer({ min: 1, max: 40_000 }),
      (base, bps, divisor, days) => bpsOf(base, bps, divisor, days) === oldPercent(base, bps, divisor, days),
    ),
  );
  t.pass();
});

test('property: calendar days between two dates as before, valid or not', (t) => {
  const day = fc
    .integer({ min: -800_000, max: 800_000 })
    .map((n) => new Date(Date.UTC(2000, 0, 1) + n * 86_400_000).toISOString().slice(0, 10))
    .filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d));
  const any = fc.oneof(
    day,
    fc.stringMatching(/^\d{4}-\d{2}-\d{2}$/), // 2026-02-30, 0099-01-01, 9999-99-99
    fc.string({ maxLength: 12 }),
  );
  fc.assert(
    fc.property(any, any, (a, b) => Object.is(daysBetween(a, b), oldDaysBetween(a, b))),
    { numRuns: 20_000 },
  );
  for (const [a, b] of [
    ['0001-01-01', '0099-12-31'],
    ['1999-12-31', '2000-01-01'],
    ['2028-02-28', '2028-03-01'],
    ['2026-02-29', '2026-03-01'],
  ])
    t.true(Object.is(daysBetween(a, b), oldDaysBetween(a, b)), `${a} ${b}`);
});
