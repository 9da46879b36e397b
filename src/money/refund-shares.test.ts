// Tests of what each split recipient gives back of a refund.
import test from 'ava';
import fc from 'fast-check';
import { refundFee, refundSplitShares, type SplitShare } from './refund-shares.ts';
import { platformFee } from './money.ts';

const A = '019ac1d0-7a2b-7c3d-8e4f-5a6b7c8d9e0f';
const B = '019ac1d0-9b8c-7d6e-9f0a-1b2c3d4e5f60';

// The three-party sale of docs/integrating.md: paid 10000, seller 7000, courier 990.
const sale = {
  paid: 10_000,
  splits: [
    { merchantId: A, amount: 7000 },
    { merchantId: B, amount: 990 },
  ],
};
const none = { amount: 0, shares: [] as SplitShare[] };

test('pro rata of the refund, rounded half up', (t) => {
  t.deepEqual(refundSplitShares(sale, none, 3000), [
    { merchantId: A, amount: 2100 },
    { merchantId: B, amount: 297 },
  ]);
  // 990 * 5 / 10000 = 0.495 -> 0; 990 * 6 / 10000 = 0.594 -> 1; 7000 * 1 / 10000 = 0.7 -> 1
  t.deepEqual(
    refundSplitShares(sale, none, 5).map((s) => s.amount),
    [4, 0],
  );
  t.deepEqual(
    refundSplitShares(sale, none, 6).map((s) => s.amount),
    [4, 1],
  );
  t.deepEqual(
    refundSplitShares(sale, none, 1).map((s) => s.amount),
    [1, 0],
  );
});

test('the refund that completes the reversing refunds takes exactly what is left of each split', (t) => {
  const before = { amount: 7000, shares: refundSplitShares(sale, none, 7000) };
  t.deepEqual(before.shares, [
    { merchantId: A, amount: 4900 },
    { merchantId: B, amount: 693 },
  ]);
  t.deepEqual(refundSplitShares(sale, before, 3000), [
    { merchantId: A, amount: 2100 },
    { merchantId: B, amount: 297 },
  ]);
  // three splits of 1 on a charge of 3, refunded 1 by 1: 1/3 -> 0 twice, then the last piece takes all three
  const thirds = {
    paid: 3,
    splits: [A, B, 'c'].map((merchantId) => ({ merchantId, amount: 1 })),
  };
  const p1 = refundSplitShares(thirds, none, 1);
  const p2 = refundSplitShares(thirds, { amount: 1, shares: p1 }, 1);
  const p3 = refundSplitShares(thirds, { amount: 2, shares: [...p1, ...p2] }, 1);
  t.deepEqual(
    [p1, p2, p3].map((p) => p.map((s) => s.amount)),
    [
      [0, 0, 0],
      [0, 0, 0],
      [1, 1, 1],
    ],
  );
});

test('before the last piece, the recipients never give more than the refund, nor more than their split', (t) => {
  // 2/3 of 1 -> 1 each would be 3 for a refund of 2: the last in the list gives up the excess
  const thirds = { paid: 3, splits: [A, B, 'c'].map((merchantId) => ({ merchantId, amount: 1 })) };
  t.deepEqual(
    refundSplitShares(thirds, none, 2).map((s) => s.amount),
    [1, 1, 0],
  );
  // 0.5 -> 1 each time: the split of 1 is all given back after the first piece
  const half = { paid: 4, splits: [{ merchantId: A, amount: 2 }] };
  const p1 = refundSplitShares(half, none, 1);
  const p2 = refundSplitShares(half, { amount: 1, shares: p1 }, 1);
  const p3 = refundSplitShares(half, { amount: 2, shares: [...p1, ...p2] }, 1);
  t.deepEqual(
    [p1, p2, p3].map((p) => p[0].amount),
    [1, 1, 0],
  );
});

// A paid amount, splits within it, and a partition of it into refunds (each reversing or not).
const scenario = fc
  .integer({ min: 1, max: 1_000_000 })
  .chain((paid) =>
    fc.record({
      paid: fc.constant(paid),
      splits: fc
        .array(fc.integer({ min: 0, max: paid }), { minLength: 1, maxLength: 10 })
        .filter((xs) => xs.reduce((s, x) => s + x, 0) <= paid)
        .map((xs) => xs.map((amount, i) => ({ merchantId: `r${i}`, amount }))),
      cuts: fc.array(fc.integer({ min: 1, max: paid }), { maxLength: 12 }),
      // half the runs reverse every piece (the charge is then refunded in full with reverseSplits)
      reversing: fc.oneof(
        fc.constant(Array.from({ length: 13 }, () => true)),
        fc.array(fc.boolean(), { minLength: 13, maxLength: 13 }),
      ),
    }),
  )
  .map(({ paid, splits, cuts, reversing }) => {
    const points = [...new Set([0, ...cuts.filter((c) => c < paid), paid])].sort((a, b) => a - b);
    const pieces = points.slice(1).map((p, i) => ({ amount: p - points[i], reverse: reversing[i] }));
    return { paid, splits, pieces };
  });

test('property: reversing refunds take back each split exactly when they cover the charge, never more, never < 0', (t) => {
  fc.assert(
    fc.property(scenario, ({ paid, splits, pieces }) => {
      const before = { amount: 0, shares: [] as SplitShare[] };
      for (const piece of pieces) {
        if (!piece.reverse) continue;
        const shares = refundSplitShares({ paid, splits }, before, piece.amount);
        const total = shares.reduce((s, x) => s + x.amount, 0);
        const last = before.amount + piece.amount === paid;
        if (shares.some((s) => s.amount < 0)) return false;
        if (!last && total > piece.amount) return false;
        before.amount += piece.amount;
        before.shares.push(...shares);
        // no recipient ever gives more than its split
        for (const s of splits) {
          const given = before.shares.filter((x) => x.merchantId === s.merchantId).reduce((a, x) => a + x.amount, 0);
          if (given > s.amount) return false;
        }
      }
      if (before.amount !== paid) return true;
      // every piece reversed: each recipient gave back exactly its split
      return splits.every(
        (s) =>
          before.shares.filter((x) => x.merchantId === s.merchantId).reduce((a, x) => a + x.amount, 0) === s.amount,
      );
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

test('property: the fee comes back in pieces that add up to it exactly; each but the last is its pro rata share', (t) => {
  const charge = fc
    .record({
      amount: fc.integer({ min: 1, max: 2_147_483_647 }),
      bps: fc.integer({ min: 0, max: 10_000 }),
      fixed: fc.integer({ min: 0, max: 100_000 }),
    })
    .chain(({ amount, bps, fixed }) =>
      fc.record({
        amount: fc.constant(amount),
        fee: fc.constant(platformFee(amount, { bps, fixed })),
        cuts: fc.array(fc.integer({ min: 1, max: amount }), { maxLength: 12 }),
      }),
    );
  fc.assert(
    fc.property(charge, ({ amount, fee, cuts }) => {
      const points = [...new Set([0, ...cuts.filter((c) => c < amount), amount])].sort((a, b) => a - b);
      const before = { amount: 0, fee: 0 };
      for (const [i, piece] of points.slice(1).map((p, i) => [i, p - points[i]])) {
        const part = refundFee({ amount, fee }, before, piece);
        const last = i === points.length - 2;
        // x = round_half_up(fee × piece / amount)  <=>  2x·amount - amount <= 2·fee·piece < 2x·amount + amount
        const [x, n, d] = [BigInt(part), BigInt(fee) * BigInt(piece), BigInt(amount)];
        if (!last && !(2n * x * d - d <= 2n * n && 2n * n < 2n * x * d + d)) return false;
        before.amount += piece;
        before.fee += part;
      }
      return before.amount === amount && before.fee === fee; // the refunded part: the whole fee, the rest the owner's
    }),
    { numRuns: 3000 },
  );
  t.pass();
});
