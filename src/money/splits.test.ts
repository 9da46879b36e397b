// Tests of the splits' arithmetic (each recipient's share, rounding half up) against an independent route.
import test from 'ava';
import fc from 'fast-check';
import { pendingSplits, resolveSplits, splitsFit } from './splits.ts';
import { recipients, splitList } from '../../test/support/split-lists.ts';

const A = '019ac1d0-7a2b-7c3d-8e4f-5a6b7c8d9e0f';
const B = '019ac1d0-9b8c-7d6e-9f0a-1b2c3d4e5f60';
const C = '019ac1d0-aaaa-7d6e-9f0a-1b2c3d4e5f61';

// round_half_up(n * bps / 10000), by an independent route (decimal strings would do too): 2n*bps + 10000 over 20000.
const share = (net: number, bps: number) => Math.floor((2 * net * bps + 10_000) / 20_000);

test('bps splits round half up on the net amount; fixed amounts are exact', (t) => {
  // net 9901: 10 % = 990.1 -> 990; 0.05 % = 4.9505 -> 5; 33.33 % = 3300.0033 -> 3300
  t.deepEqual(
    resolveSplits(9901, [
      { merchantId: A, bps: 1000 },
      { merchantId: B, amount: 7000 },
      { merchantId: C, bps: 5 },
    ]),
    [
      { merchantId: A, bps: 1000, amount: 990 },
      { merchantId: B, bps: null, amount: 7000 },
      { merchantId: C, bps: 5, amount: 5 },
    ],
  );
  // exactly half a centavo rounds up: 10 * 5 % = 0.5 -> 1
  t.is(resolveSplits(10, [{ merchantId: A, bps: 500 }])[0].amount, 1);
  // 0.49 -> 0: a split of 0 centavos is kept (and posts nothing)
  t.is(resolveSplits(49, [{ merchantId: A, bps: 100 }])[0].amount, 0);
});

test('roundings up never take the splits past the net: the later bps splits give up the excess', (t) => {
  // net 1, 50 % + 50 %: 0.5 -> 1 and 0.5 -> 1 would be 2; the second gets what is left
  t.deepEqual(
    resolveSplits(1, [
      { merchantId: A, bps: 5000 },
      { merchantId: B, bps: 5000 },
    ]).map((s) => s.amount),
    [1, 0],
  );
  // net 3, three thirds (3333 bps): 0.9999 -> 1 each, exactly 3; net 5 with 5000 + 5000: 2.5 -> 3, then 2
  t.deepEqual(
    resolveSplits(5, [
      { merchantId: A, bps: 5000 },
      { merchantId: B, bps: 5000 },
    ]).map((s) => s.amount),
    [3, 2],
  );
  // a fixed amount is never cut, wherever it stands in the list
  t.deepEqual(
    resolveSplits(2, [
      { merchantId: A, bps: 2500 },
      { merchantId: B, bps: 2500 },
      { merchantId: C, amount: 1 },
    ]).map((s) => s.amount),
    [1, 0, 1],
  );
});

test('splitsFit: fixed amounts plus the exact bps shares within the net, bps at most 10000', (t) => {
  t.true(splitsFit(9901, [{ merchantId: A, amount: 9901 }]));
  t.false(splitsFit(9901, [{ merchantId: A, amount: 9902 }]));
  t.true(
    splitsFit(9901, [
      { merchantId: A, amount: 8911 },
      { merchantId: B, bps: 1000 }, // 990.1: 8911 + 990.1 = 9901.1 > 9901
    ]) === false,
  );
  t.true(
    splitsFit(9901, [
      { merchantId: A, amount: 8910 },
      { merchantId: B, bps: 1000 },
    ]),
  );
  t.true(splitsFit(1, [{ merchantId: A, bps: 10_000 }]));
  t.false(
    splitsFit(1_000_000, [
      { merchantId: A, bps: 6000 },
      { merchantId: B, bps: 4001 },
    ]),
  );
  // a net of 0 (the fee took everything) fits bps splits only (each gets 0)
  t.true(splitsFit(0, [{ merchantId: A, bps: 10_000 }]));
  t.false(splitsFit(0, [{ merchantId: A, amount: 1 }]));
});

test('a due-date charge waits for its net: bps splits without an amount', (t) => {
  t.deepEqual(pendingSplits([{ merchantId: A, bps: 250 }]), [{ merchantId: A, bps: 250, amount: null }]);
});

test('property: resolved splits never exceed the net, fixed ones exact, bps ones the rounding or what was left', (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2_147_483_647 }).chain((net) => fc.tuple(fc.constant(net), splitList(net))),
      ([net, splits]) => {
        const resolved = resolveSplits(net, splits);
        const total = resolved.reduce((s, x) => s + x.amount!, 0);
        if (total > net || resolved.some((x) => x.amount! < 0)) return false;
        let left = net - splits.reduce((s, x) => s + ('amount' in x ? x.amount : 0), 0);
        return splits.every((x, i) => {
          if ('amount' in x) return resolved[i].amount === x.amount;
          const want = share(net, x.bps);
          const got = resolved[i].amount!;
          left -= got;
          return got === Math.min(want, got + left); // the rounding, unless less was left
        });
      },
    ),
    { numRuns: 2000 },
  );
  t.pass();
});

test('property: bps splits within 10000 resolve exactly when their roundings leave room (no cut)', (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10_000_000 }),
      fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 10 }),
      (net, bps) => {
        fc.pre(bps.reduce((s, b) => s + share(net, b), 0) <= net);
        const resolved = resolveSplits(
          net,
          bps.map((b, i) => ({ merchantId: recipients[i], bps: b })),
        );
        return resolved.every((x, i) => x.amount === share(net, bps[i]));
      },
    ),
    { numRuns: 1000 },
  );
  t.pass();
});
