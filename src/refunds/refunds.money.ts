// The money of a merchant's refund, in pure functions (no database): who gives back what of it, and the ledger postings
// of each step of its life. Splits to other merchants (reverseSplits) grow here.
import { accounts, type Posting } from '../ledger/ledger.service.ts';

// round_half_up(n / d) for non-negative integers, exactly: fee × amount reaches 2^62, beyond a double's integers.
function divRoundHalfUp(n: bigint, d: bigint): number {
  return Number((2n * n + d) / (2n * d));
}

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
  return divRoundHalfUp(BigInt(charge.fee) * BigInt(amount), BigInt(charge.amount));
}

export type RefundStep = 'hold' | 'release' | 'complete';
export type RefundMoney = { amount: number; feeAmount: number; merchantId: string };

/**
 * The postings of a refund's step. hold (requested): the merchant's share leaves its available balance and the
 * platform's its fees, both onto suspense:refunds; release (FAILED): the hold goes back; complete (DEVOLVIDO): the
 * amount leaves suspense for the acquirer. A last piece whose fee share exceeds the amount (the merchant's share below
 * zero) holds only the amount from the platform and moves the rest, platform to merchant, when it completes: a hold
 * never credits the merchant, so a release never has to take back what it may have spent.
 */
export function refundPostings(step: RefundStep, r: RefundMoney): Posting[] {
  const m = r.merchantId;
  const merchantShare = r.amount - r.feeAmount;
  if (step === 'complete') {
    const owed = Math.max(0, -merchantShare); // platform -> merchant, settled now
    return [
      { account: accounts.refundsInProgress, amount: -r.amount },
      { account: accounts.acquirerSettlement, amount: r.amount },
      ...(owed > 0
        ? [
            { account: accounts.platformFees, amount: -owed },
            { account: accounts.available(m), amount: owed, merchantId: m },
          ]
        : []),
    ];
  }
  const sign = step === 'hold' ? -1 : 1;
  return [
    { account: accounts.available(m), amount: sign * Math.max(0, merchantShare), merchantId: m },
    { account: accounts.platformFees, amount: sign * Math.min(r.feeAmount, r.amount) },
    { account: accounts.refundsInProgress, amount: -sign * r.amount },
  ];
}
