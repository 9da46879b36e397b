// Splits: a charge's owner shares its net amount (paid - fee) with other merchants of the platform (contract "Split to
// recipient merchants"). Pure functions over integer centavos; no database.
import { bpsOf } from './money.ts';

// As asked: a fixed amount, or basis points of the net amount.
export type SplitInput = { merchantId: string; amount: number } | { merchantId: string; bps: number };

// As kept on the charge and shown by the API: `amount` is what the recipient gets, null until it is known (a `bps`
// split of a due-date charge, whose net amount is known only at payment); `bps` is null for a fixed amount.
export type ChargeSplit = { merchantId: string; bps: number | null; amount: number | null };

export const MAX_SPLITS = 10;

const bpsIn = (s: SplitInput) => ('bps' in s ? s.bps : 0);
const fixedOf = (s: SplitInput) => ('amount' in s ? s.amount : 0);

/**
 * Whether the splits fit in a net amount: the fixed amounts plus the exact basis-point shares (before any rounding)
 * at most `net`, and the basis points at most 10000 in all. A due-date charge, whose net is unknown at creation,
 * takes only `bps` splits: they fit any net when their basis points add up to at most 10000.
 */
export function splitsFit(net: number, splits: SplitInput[]): boolean {
  const fixed = splits.reduce((s, x) => s + BigInt(fixedOf(x)), 0n);
  const bps = splits.reduce((s, x) => s + BigInt(bpsIn(x)), 0n);
  return bps <= 10_000n && fixed * 10_000n + BigInt(net) * bps <= BigInt(net) * 10_000n;
}

/**
 * What each recipient gets of `net`: a fixed amount as it is; a `bps` split round_half_up(net * bps / 10000), except
 * that the roundings never take the splits past `net` (the fixed amounts first, then the `bps` splits in the list's
 * order, each at most what is left). Needs splitsFit(net, splits). The owner keeps net - the sum.
 */
export function resolveSplits(net: number, splits: SplitInput[]): ChargeSplit[] {
  let left = net - splits.reduce((s, x) => s + fixedOf(x), 0);
  if (left < 0) throw new Error('the fixed splits exceed the net amount');
  return splits.map((s) => {
    if ('amount' in s) return { merchantId: s.merchantId, bps: null, amount: s.amount };
    const amount = Math.min(left, bpsOf(net, s.bps));
    left -= amount;
    return { merchantId: s.merchantId, bps: s.bps, amount };
  });
}

// The splits of a due-date charge until it is paid: the `bps` entries wait for the net amount.
export const pendingSplits = (splits: SplitInput[]): ChargeSplit[] =>
  splits.map((s) =>
    'amount' in s ? { merchantId: s.merchantId, bps: null, amount: s.amount } : { ...s, amount: null },
  );

// The splits as asked again (a due-date charge's, resolved at payment), from what the charge keeps.
export const asInputs = (splits: ChargeSplit[]): SplitInput[] =>
  splits.map((s) =>
    s.bps === null ? { merchantId: s.merchantId, amount: s.amount! } : { merchantId: s.merchantId, bps: s.bps },
  );
