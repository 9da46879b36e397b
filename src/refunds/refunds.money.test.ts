// Tests of refunds' money over a charge's life: what each refund takes and gives back.
import test from 'ava';
import fc from 'fast-check';
import { accounts } from '../ledger/ledger.service.ts';
import { refundFee } from '../money/refund-shares.ts';
import { refundPostings, type RefundStep } from './refunds.money.ts';

const M = '019a8f3b-0000-7000-8000-000000000001';
const AVAILABLE = accounts.available(M);

type Refund = { amount: number; feeAmount: number; status: 'PROCESSING' | 'COMPLETED' | 'FAILED'; last: boolean };

// A charge's life: refunds requested, completed or failed in any order, then whatever is left refunded and everything
// completed. `books` applies every posting, as the ledger would.
function live(a: number, f: number, script: { ask: number; outcome: 'complete' | 'fail' | 'later' }[]) {
  const refunds: Refund[] = [];
  const books = new Map<string, number>();
  const postings: ReturnType<typeof refundPostings>[] = [];
  const apply = (step: RefundStep, r: Refund) => {
    const p = refundPostings(step, { amount: r.amount, feeAmount: r.feeAmount, merchantId: M });
    postings.push(p);
    for (const { account, amount } of p) books.set(account, (books.get(account) ?? 0) + amount);
  };
  const taken = () => refunds.filter((r) => r.status !== 'FAILED');
  const request = (amount: number) => {
    const before = { amount: 0, fee: 0 };
    for (const r of taken()) {
      before.amount += r.amount;
      before.fee += r.feeAmount;
    }
    const r: Refund = {
      amount,
      feeAmount: refundFee({ amount: a, fee: f }, before, amount),
      status: 'PROCESSING',
      last: before.amount + amount === a,
    };
    refunds.push(r);
    apply('hold', r);
    return r;
  };
  const settle = (r: Refund, outcome: 'complete' | 'fail') => {
    r.status = outcome === 'complete' ? 'COMPLETED' : 'FAILED';
    apply(outcome === 'complete' ? 'complete' : 'release', r);
  };
  for (const { ask, outcome } of script) {
    const left = a - taken().reduce((s, r) => s + r.amount, 0);
    if (left === 0) break;
    const r = request(1 + (ask % left));
    if (outcome !== 'later') settle(r, outcome);
  }
  for (const r of refunds) if (r.status === 'PROCESSING') settle(r, 'complete');
  const left = a - taken().reduce((s, r) => s + r.amount, 0);
  if (left > 0) settle(request(left), 'complete');
  return { refunds, books, postings };
}

const charge = fc
  .integer({ min: 1, max: 2_147_483_647 })
  .chain((a) => fc.tuple(fc.constant(a), fc.oneof(fc.integer({ min: 0, max: a }), fc.constant(Math.min(a, 99)))));
const script = fc.array(
  fc.record({
    ask: fc.oneof(fc.nat(), fc.integer({ min: 0, max: 3 })),
    outcome: fc.constantFrom('complete' as const, 'fail' as const, 'later' as const),
  }),
  { maxLength: 25 },
);

test('property: refunded in any pieces, completed or failed in any order, the platform gives back exactly its fee', (t) => {
  fc.assert(
    fc.property(charge, script, ([a, f], steps) => {
      const { refunds, books, postings } = live(a, f, steps);
      for (const p of postings) {
        if (p.reduce((s, x) => s + x.amount, 0) !== 0) return false; // every step balances
        if (new Set(p.map((x) => x.account)).size !== p.length) return false;
      }
      const completed = refunds.filter((r) => r.status === 'COMPLETED');
      const fees = completed.reduce((s, r) => s + r.feeAmount, 0);
      const amounts = completed.reduce((s, r) => s + r.amount, 0);
      // the pieces add up, to the centavo: the payer got a, the platform gave f, the merchant a - f
      return (
        amounts === a &&
        fees === f &&
        (books.get(accounts.acquirerSettlement) ?? 0) === a &&
        (books.get(accounts.platformFees) ?? 0) === -f &&
        (books.get(AVAILABLE) ?? 0) === -(a - f) &&
        (books.get(accounts.refundsInProgress) ?? 0) === 0
      );
    }),
    { numRuns: 2000 },
  );
  t.pass();
});

test('property: every piece but the last takes round_half_up(fee × amount / charge) from the platform, within 0..amount', (t) => {
  fc.assert(
    fc.property(charge, script, ([a, f], steps) => {
      for (const r of live(a, f, steps).refunds.filter((x) => !x.last)) {
        const exact = Number((2n * BigInt(f) * BigInt(r.amount) + BigInt(a)) / (2n * BigInt(a)));
        if (r.feeAmount !== exact || r.feeAmount < 0 || r.feeAmount > r.amount) return false;
      }
      return true;
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

test('property: a hold never credits the merchant, so a release never takes back what it may have spent', (t) => {
  fc.assert(
    fc.property(charge, script, ([a, f], steps) => {
      for (const r of live(a, f, steps).refunds) {
        const held = refundPostings('hold', { amount: r.amount, feeAmount: r.feeAmount, merchantId: M });
        const released = refundPostings('release', { amount: r.amount, feeAmount: r.feeAmount, merchantId: M });
        if ((held.find((p) => p.account === AVAILABLE)?.amount ?? 0) > 0) return false;
        if ((released.find((p) => p.account === AVAILABLE)?.amount ?? 0) < 0) return false;
      }
      return true;
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

test('examples: the contract rule by hand', (t) => {
  const c = { amount: 10_000, fee: 99 };
  t.is(refundFee(c, { amount: 0, fee: 0 }, 2_500), 25); // 24.75 -> 25
  t.is(refundFee(c, { amount: 2_500, fee: 25 }, 4_000), 40); // 39.6 -> 40
  t.is(refundFee(c, { amount: 6_500, fee: 65 }, 3_500), 34); // the last: what is left (34.65 would round to 35)
  t.is(refundFee({ amount: 3, fee: 1 }, { amount: 0, fee: 0 }, 1), 0); // 0.33 -> 0
  t.is(refundFee({ amount: 2, fee: 1 }, { amount: 0, fee: 0 }, 1), 1); // 0.5 -> 1 (half up)
  t.is(refundFee({ amount: 2_147_483_647, fee: 2_147_483_647 }, { amount: 0, fee: 0 }, 2_147_483_646), 2_147_483_646);
  // six pieces of 1 of a charge of 6 with a fee of 3: half up gives back 1 each, so the last piece's share is negative
  const tiny = { amount: 6, fee: 3 };
  t.is(refundFee(tiny, { amount: 5, fee: 5 }, 1), -2);
  t.deepEqual(refundPostings('hold', { amount: 1, feeAmount: -2, merchantId: M }), [
    { account: AVAILABLE, amount: -3, merchantId: M },
    { account: accounts.platformFees, amount: 2 },
    { account: accounts.refundsInProgress, amount: 1 },
  ]);
  // ten pieces of 1 of a charge of 10 with a fee of 4: each rounds 0.4 down, the last takes the whole fee (4 > 1): the
  // platform holds the piece, and the merchant is given the rest only when it completes
  t.is(refundFee({ amount: 10, fee: 4 }, { amount: 9, fee: 0 }, 1), 4);
  const last = { amount: 1, feeAmount: 4, merchantId: M };
  t.deepEqual(
    refundPostings('hold', last).filter((p) => p.amount !== 0),
    [
      { account: accounts.platformFees, amount: -1 },
      { account: accounts.refundsInProgress, amount: 1 },
    ],
  );
  t.deepEqual(refundPostings('complete', last), [
    { account: accounts.refundsInProgress, amount: -1 },
    { account: accounts.acquirerSettlement, amount: 1 },
    { account: accounts.platformFees, amount: -3 },
    { account: AVAILABLE, amount: 3, merchantId: M },
  ]);
});
