// Tests of a charge with splits through any sequence of refunds.
import test from 'ava';
import fc from 'fast-check';
import { accounts, type Posting } from '../ledger/ledger.service.ts';
import { platformFee } from '../money/money.ts';
import { resolveSplits, splitsFit, type SplitInput } from '../money/splits.ts';
import { paymentTransactions } from '../payments/payment-money.ts';
import { refundPostings, type RefundMoney, type RefundStep } from './refunds.money.ts';
import { refundFee, refundSplitShares, type SplitShare } from '../money/refund-shares.ts';

// A charge with splits, from its payment through any sequence of refunds (each reversing the splits or not, completed
// or failed in any order), every posting applied to books as the ledger would: no centavo is created or lost, no
// hold credits anyone, and each party's total is exact.

const OWNER = '019a8f3b-0000-7000-8000-000000000001';
const RECIPIENTS = Array.from(
  { length: 10 },
  (_, i) => `019a8f3b-0000-7000-8000-0000000001${String(i).padStart(2, '0')}`,
);

type Refund = RefundMoney & { status: 'PROCESSING' | 'COMPLETED' | 'FAILED'; reverse: boolean };
type Step = { ask: number; reverse: boolean; outcome: 'complete' | 'fail' | 'later' };

function live(paid: number, fee: number, splits: SplitInput[], script: Step[], reverseRest: boolean) {
  const charged = resolveSplits(paid - fee, splits);
  const resolved = charged.map((s) => ({ merchantId: s.merchantId, amount: s.amount! }));
  const books = new Map<string, number>();
  const post = (ps: Posting[]) => {
    for (const { account, amount } of ps) books.set(account, (books.get(account) ?? 0) + amount);
  };
  for (const t of paymentTransactions({ chargeId: OWNER, owner: OWNER, paid, fee, splits: charged })) post(t.postings);
  const afterPayment = new Map(books);
  const refunds: Refund[] = [];
  let holdsCredit = false;
  const apply = (step: RefundStep, r: Refund) => {
    const ps = refundPostings(step, r);
    if (step === 'hold' && ps.some((p) => p.account.startsWith('merchant:') && p.amount > 0)) holdsCredit = true;
    if (step === 'release' && ps.some((p) => p.account.startsWith('merchant:') && p.amount < 0)) holdsCredit = true;
    post(ps);
  };
  const taken = () => refunds.filter((r) => r.status !== 'FAILED');
  const request = (amount: number, reverse: boolean) => {
    const before = { amount: 0, fee: 0 };
    const reversed = { amount: 0, shares: [] as SplitShare[] };
    for (const r of taken()) {
      before.amount += r.amount;
      before.fee += r.feeAmount;
      if (r.reverse) {
        reversed.amount += r.amount;
        reversed.shares.push(...r.splits!);
      }
    }
    const r: Refund = {
      amount,
      feeAmount: refundFee({ amount: paid, fee }, before, amount),
      merchantId: OWNER,
      splits: reverse ? refundSplitShares({ paid, splits: resolved }, reversed, amount) : [],
      status: 'PROCESSING',
      reverse,
    };
    refunds.push(r);
    apply('hold', r);
    return r;
  };
  const settle = (r: Refund, outcome: 'complete' | 'fail') => {
    r.status = outcome === 'complete' ? 'COMPLETED' : 'FAILED';
    apply(outcome === 'complete' ? 'complete' : 'release', r);
  };
  for (const { ask, reverse, outcome } of script) {
    const left = paid - taken().reduce((s, r) => s + r.amount, 0);
    if (left === 0) break;
    const r = request(1 + (ask % left), reverse);
    if (outcome !== 'later') settle(r, outcome);
  }
  for (const r of refunds) if (r.status === 'PROCESSING') settle(r, 'complete');
  const left = paid - taken().reduce((s, r) => s + r.amount, 0);
  if (left > 0) settle(request(left, reverseRest), 'complete');
  return { books, afterPayment, refunds, resolved, holdsCredit };
}

const scenario = fc
  .record({
    paid: fc.oneof(fc.integer({ min: 1, max: 2_147_483_647 }), fc.integer({ min: 1, max: 50 })),
    bps: fc.integer({ min: 0, max: 10_000 }),
    fixed: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100 })),
  })
  .chain(({ paid, bps, fixed }) => {
    const fee = platformFee(paid, { bps, fixed });
    const net = paid - fee;
    return fc.record({
      paid: fc.constant(paid),
      fee: fc.constant(fee),
      splits: fc
        .array(
          fc.oneof(
            fc.integer({ min: 1, max: 10_000 }).map((v) => ({ bps: v })),
            fc.integer({ min: 1, max: Math.max(1, net) }).map((v) => ({ amount: v })),
          ),
          { minLength: 1, maxLength: 10 },
        )
        .map((xs) => xs.map((x, i) => ({ merchantId: RECIPIENTS[i], ...x }) as SplitInput))
        .filter((xs) => splitsFit(net, xs)),
      script: fc.array(
        fc.record({
          ask: fc.oneof(fc.nat(), fc.integer({ min: 0, max: 3 })),
          reverse: fc.boolean(),
          outcome: fc.constantFrom('complete' as const, 'fail' as const, 'later' as const),
        }),
        { maxLength: 12 },
      ),
      everyPieceReverses: fc.boolean(),
    });
  });

test('property: refunds of a charge with splits create and lose no centavo; all reversing, each party is back to zero', (t) => {
  fc.assert(
    fc.property(scenario, ({ paid, fee, splits, script, everyPieceReverses }) => {
      const steps = everyPieceReverses ? script.map((s) => ({ ...s, reverse: true })) : script;
      const { books, afterPayment, refunds, resolved, holdsCredit } = live(
        paid,
        fee,
        splits,
        steps,
        everyPieceReverses,
      );
      if (holdsCredit) return false;
      // nothing created or lost: the books sum to zero, suspense is empty, the payer got everything back
      if ([...books.values()].reduce((s, v) => s + v, 0) !== 0) return false;
      if ((books.get(accounts.refundsInProgress) ?? 0) !== 0) return false;
      if ((books.get(accounts.acquirerSettlement) ?? 0) !== 0) return false;
      if ((books.get(accounts.platformFees) ?? 0) !== 0) return false; // the whole fee given back
      const completed = refunds.filter((r) => r.status === 'COMPLETED');
      const reversed = (id: string) =>
        completed
          .filter((r) => r.reverse)
          .flatMap((r) => r.splits!)
          .filter((s) => s.merchantId === id)
          .reduce((s, x) => s + x.amount, 0);
      // each recipient gave back exactly what its completed reversing refunds say, never more than its split
      for (const s of resolved) {
        const now = books.get(accounts.available(s.merchantId)) ?? 0;
        if (now !== s.amount - reversed(s.merchantId) || now < 0) return false;
      }
      // and the owner the rest: the charge's whole amount is back with the payer, so the owner holds what the
      // recipients kept
      const kept = resolved.reduce((sum, s) => sum + (books.get(accounts.available(s.merchantId)) ?? 0), 0);
      if ((books.get(accounts.available(OWNER)) ?? 0) !== -kept) return false;
      if (afterPayment.get(accounts.available(OWNER)) !== paid - fee - resolved.reduce((s, x) => s + x.amount, 0))
        return false;
      // every piece reversed the splits: everyone is back exactly where it was before the payment
      if (completed.every((r) => r.reverse)) return [...books.values()].every((v) => v === 0);
      return true;
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

test('examples: the three-party sale of docs/integrating.md, refunded 3000 then the rest, reversing the splits', (t) => {
  const seller = RECIPIENTS[0];
  const courier = RECIPIENTS[1];
  const splits = [
    { merchantId: seller, amount: 7000 },
    { merchantId: courier, amount: 990 },
  ];
  const first = refundSplitShares({ paid: 10_000, splits }, { amount: 0, shares: [] }, 3000);
  const fee1 = refundFee({ amount: 10_000, fee: 99 }, { amount: 0, fee: 0 }, 3000);
  t.is(fee1, 30); // 29.7
  t.deepEqual(refundPostings('hold', { amount: 3000, feeAmount: fee1, merchantId: OWNER, splits: first }), [
    { account: accounts.available(OWNER), amount: -573, merchantId: OWNER },
    { account: accounts.available(seller), amount: -2100, merchantId: seller },
    { account: accounts.available(courier), amount: -297, merchantId: courier },
    { account: accounts.platformFees, amount: -30 },
    { account: accounts.refundsInProgress, amount: 3000 },
  ]);
  const rest = refundSplitShares({ paid: 10_000, splits }, { amount: 3000, shares: first }, 7000);
  t.deepEqual(rest, [
    { merchantId: seller, amount: 4900 },
    { merchantId: courier, amount: 693 },
  ]);
  const fee2 = refundFee({ amount: 10_000, fee: 99 }, { amount: 3000, fee: 30 }, 7000);
  t.is(fee2, 69);
  // the owner gives 7000 - 69 - 4900 - 693 = 1338: with the 573 before, 1911, all it kept
  t.is(refundPostings('hold', { amount: 7000, feeAmount: fee2, merchantId: OWNER, splits: rest })[0].amount, -1338);
});

test('a last piece whose recipients remainders exceed it: the owner is paid the difference on completion, not before', (t) => {
  // paid 3, fee 0, three splits of 1 (the owner keeps 0); refunded 1, 1 (0 each), then the last 1 takes 1 from each
  const shares = RECIPIENTS.slice(0, 3).map((merchantId) => ({ merchantId, amount: 1 }));
  const money = { amount: 1, feeAmount: 0, merchantId: OWNER, splits: shares };
  const hold = refundPostings('hold', money);
  t.deepEqual(
    hold.filter((p) => p.amount !== 0),
    [
      ...shares.map((s) => ({ account: accounts.available(s.merchantId), amount: -1, merchantId: s.merchantId })),
      { account: accounts.refundsInProgress, amount: 3 },
    ],
  );
  t.deepEqual(refundPostings('complete', money), [
    { account: accounts.refundsInProgress, amount: -3 },
    { account: accounts.acquirerSettlement, amount: 1 },
    { account: accounts.available(OWNER), amount: 2, merchantId: OWNER },
  ]);
  t.deepEqual(
    refundPostings('release', money).filter((p) => p.amount !== 0),
    [
      ...shares.map((s) => ({ account: accounts.available(s.merchantId), amount: 1, merchantId: s.merchantId })),
      { account: accounts.refundsInProgress, amount: -3 },
    ],
  );
});
