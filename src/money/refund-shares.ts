// Who gives back what of a refund, in pure functions: the platform's part of its fee (`refundFee`) and each split's
// recipient's part when the refund reverses the splits (`refundSplitShares`); the owner gives the rest. The postings of
// each of a refund's steps are refunds' (src/refunds/refunds.money.ts).
import { roundHalfUp } from './money.ts';

// What a recipient gave, or gives, back: centavos of its split.
export type SplitShare = { merchantId: string; amount: number };

/**
 * What the platform gives back of a charge's fee for a refund of `amount` (contract "Refunds: partial and multiple"):
 * round_half_up(fee × amount / charge amount), except that the refund that brings the total refunded (COMPLETED and
 * PROCESSING, `before` being theirs) to the charge's amount takes exactly what is left of the fee. The merchant gives
 * the rest of `amount`. Refunded in any number of pieces, a charge therefore returns exactly `fee` from the platform
 * and `amount - fee` from the merchant. (Only that last piece can fall outside 0..amount, after many tiny refunds whose
 * roundings went one way: refundPostings keeps every step within what each side holds.)
 */
export function refundFee(
  charge: { amount: number; fee: number },
  before: { amount: number; fee: number },
  amount: number,
): number {
  if (before.amount + amount === charge.amount) return charge.fee - before.fee;
  return roundHalfUp(BigInt(charge.fee) * BigInt(amount), BigInt(charge.amount));
}

/**
 * Each recipient's share of a refund of `amount` that reverses the splits (contract "Split to recipient merchants"):
 * round_half_up(split × amount / paid), pro rata of what the payer paid, except that the refund that brings the
 * reversing refunds (COMPLETED and PROCESSING; `before` is theirs: their amount and what each recipient gave) to
 * `paid` takes exactly what is left of each split. A charge refunded in full, in any number of reversing pieces,
 * therefore takes back exactly each recipient's split. Before that last piece, no recipient ever gives more than
 * what is left of its split, and the recipients together no more than the refund (the later splits in the list give
 * up the excess of the roundings); the last piece's remainders may add up to more than it, the difference going to
 * the owner, which gave more in the earlier pieces.
 */
export function refundSplitShares(
  charge: { paid: number; splits: SplitShare[] },
  before: { amount: number; shares: SplitShare[] },
  amount: number,
): SplitShare[] {
  const given = (id: string) => before.shares.filter((s) => s.merchantId === id).reduce((sum, s) => sum + s.amount, 0);
  const last = before.amount + amount === charge.paid;
  let room = amount;
  return charge.splits.map((s) => {
    const left = s.amount - given(s.merchantId);
    if (last) return { merchantId: s.merchantId, amount: left };
    const share = Math.min(left, room, roundHalfUp(BigInt(s.amount) * BigInt(amount), BigInt(charge.paid)));
    room -= share;
    return { merchantId: s.merchantId, amount: share };
  });
}
