// fast-check split lists for the money property tests: up to 10 recipients, fixed or bps, that fit a net amount.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { splitsFit, type SplitInput } from '../../src/money/splits.ts';

// Split lists that fit a net amount: up to 10 recipients, fixed or bps, drawn then kept only when they fit.
export const recipients = Array.from({ length: 10 }, () => randomUUID());
export const splitList = (net: number) =>
  fc
    .array(
      fc.oneof(
        fc.record({ kind: fc.constant('bps' as const), v: fc.integer({ min: 1, max: 10_000 }) }),
        fc.record({ kind: fc.constant('amount' as const), v: fc.integer({ min: 1, max: Math.max(1, net) }) }),
      ),
      { minLength: 1, maxLength: 10 },
    )
    .map((xs) =>
      xs.map((x, i): SplitInput =>
        x.kind === 'bps' ? { merchantId: recipients[i], bps: x.v } : { merchantId: recipients[i], amount: x.v },
      ),
    )
    .filter((xs) => splitsFit(net, xs));
