// What each split's recipient gives back of a refund that reverses the splits (`reverseSplits`), in a pure function.

// What a recipient gave, or gives, back: centavos of its split.
export type SplitShare = { merchantId: string; amount: number };

// round_half_up(n / d) of non-negative integers, exactly (n can pass 2^53).
const roundHalfUp = (n: bigint, d: bigint) => Number((2n * n + d) / (2n * d));

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
