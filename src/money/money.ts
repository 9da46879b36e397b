// Money: the arithmetic every module shares, over integer centavos and basis points (1 bps = 0.01 %). Pure: it imports
// nothing (not even another src/ folder: `money-is-pure` in .dependency-cruiser.cjs), reads no clock, does no I/O.
// Splits in splits.ts, refund shares in refund-shares.ts, what a due-date charge asks in due-date-amounts.ts.

/** round_half_up(n / d) of non-negative integers, exactly (n can pass 2^53: a fee × an amount reaches 2^62). */
export const roundHalfUp = (n: bigint, d: bigint): number => Number((2n * n + d) / (2n * d));

/** round_half_up(amount × bps × times / divisor): basis points of `amount` (per day when `times` is a day count). */
export const bpsOf = (amount: number, bps: number, divisor = 10_000, times = 1): number =>
  roundHalfUp(BigInt(amount) * BigInt(bps) * BigInt(times), BigInt(divisor));

// The platform's fee terms of a merchant: basis points of the amount paid plus a fixed amount.
export type FeeTerms = { bps: number; fixed: number };

/** The fee terms a merchant pays: its own where set (`merchant:fee`), else the platform's (PLATFORM_FEE_BPS, _FIXED). */
export const effectiveFee = (
  own: { feeBps?: number | null; feeFixed?: number | null },
  platform: FeeTerms,
): FeeTerms => ({
  bps: own.feeBps ?? platform.bps,
  fixed: own.feeFixed ?? platform.fixed,
});

/** Platform fee of a payment: fixed + round_half_up(amount * bps / 10000), never more than the amount. */
export const platformFee = (amount: number, fee: FeeTerms): number =>
  Math.min(amount, fee.fixed + bpsOf(amount, fee.bps));
