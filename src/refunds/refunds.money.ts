// The money of a merchant's refund, in pure functions (no database): the ledger postings of each step of its life, the
// split recipients' included. Who gives back what of it (refundFee, refundSplitShares) is src/money/refund-shares.ts.
import { accounts, type Posting } from '../ledger/ledger.service.ts';
import type { SplitShare } from '../money/refund-shares.ts';

export type RefundStep = 'hold' | 'release' | 'complete';
// splits: what each of the charge's split recipients gives back of it (reverseSplits; src/money/refund-shares.ts), else none.
export type RefundMoney = { amount: number; feeAmount: number; merchantId: string; splits?: SplitShare[] };

/**
 * Who holds what of a refund on suspense:refunds, the shares of the platform (its fee), of the split recipients and of
 * the owner (the rest): each gives at most its share and never less than 0, so a hold never credits anyone and a
 * release never has to take back what may have been spent. When the others' shares exceed the refund (a last piece
 * whose fee, or whose recipients' remainders, outgrow it: the owner's share below zero), the owner holds nothing, the
 * platform holds only what the recipients leave of the amount and the recipients their whole remainders; what the
 * owner is owed (`owedByPlatform`, and the held excess over the amount) is credited to it when the refund completes.
 */
function holdsOf(r: RefundMoney) {
  const splits = (r.splits ?? []).filter((s) => s.amount !== 0);
  const toRecipients = splits.reduce((sum, s) => sum + s.amount, 0);
  const platform = Math.min(r.feeAmount, Math.max(0, r.amount - toRecipients));
  const owner = Math.max(0, r.amount - r.feeAmount - toRecipients);
  return { splits, platform, owner, held: toRecipients + platform + owner, owedByPlatform: r.feeAmount - platform };
}

/**
 * The postings of a refund's step. hold (requested): the owner's share leaves its available balance, each recipient's
 * (reverseSplits) its own, the platform's its fees, all onto suspense:refunds; release (FAILED): the hold goes back to
 * each; complete (DEVOLVIDO): the amount leaves suspense for the acquirer, and what the owner is owed (holdsOf) is
 * credited to it. Refunded in any number of pieces, a charge therefore returns exactly its fee from the platform, each
 * split from its recipient when every piece reversed them, and the rest from the owner.
 */
export function refundPostings(step: RefundStep, r: RefundMoney): Posting[] {
  const m = r.merchantId;
  const h = holdsOf(r);
  if (step === 'complete') {
    const owed = h.owedByPlatform + (h.held - r.amount); // platform and suspense -> the owner, settled now
    return [
      { account: accounts.refundsInProgress, amount: -h.held },
      { account: accounts.acquirerSettlement, amount: r.amount },
      ...(h.owedByPlatform > 0 ? [{ account: accounts.platformFees, amount: -h.owedByPlatform }] : []),
      ...(owed > 0 ? [{ account: accounts.available(m), amount: owed, merchantId: m }] : []),
    ];
  }
  const sign = step === 'hold' ? -1 : 1;
  return [
    { account: accounts.available(m), amount: sign * h.owner, merchantId: m },
    ...h.splits.map((s) => ({
      account: accounts.available(s.merchantId),
      amount: sign * s.amount,
      merchantId: s.merchantId,
    })),
    { account: accounts.platformFees, amount: sign * h.platform },
    { account: accounts.refundsInProgress, amount: -sign * h.held },
  ];
}
