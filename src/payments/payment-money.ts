// The money of a charge's payment (the settlement's, settle.ts), in a pure function (no database): the ledger
// transactions that pay the owner, the platform and each split's recipient out of what the payer paid.
import { createHash } from 'node:crypto';
import { accounts, type LedgerTransaction } from '../ledger/ledger.service.ts';
import type { ChargeSplit } from '../money/splits.ts';

export type PaidCharge = { chargeId: string; owner: string; paid: number; fee: number; splits: ChargeSplit[] };

/**
 * A paid charge's ledger transactions: the payment (acquirer -> the owner's net, paid - fee, and the platform's fee),
 * then one transaction per split that moves its amount from the owner's available balance to the recipient's (so the
 * owner's statement shows the net, then each split). Splits of 0 centavos move nothing and post nothing.
 */
export function paymentTransactions(c: PaidCharge): LedgerTransaction[] {
  const { owner } = c;
  const payment: LedgerTransaction = {
    kind: 'charge.payment',
    referenceId: c.chargeId,
    postings: [
      { account: accounts.acquirerSettlement, amount: -c.paid },
      { account: accounts.available(owner), amount: c.paid - c.fee, merchantId: owner },
      { account: accounts.platformFees, amount: c.fee },
    ],
    links: { chargeId: c.chargeId },
  };
  const splits = c.splits.flatMap((s, i) =>
    s.amount ? [{ merchantId: s.merchantId, amount: s.amount, ref: splitReference(c.chargeId, i) }] : [],
  );
  return [
    payment,
    ...splits.map((s) => ({
      kind: 'charge.split' as const,
      referenceId: s.ref,
      links: { chargeId: c.chargeId },
      postings: [
        { account: accounts.available(owner), amount: -s.amount, merchantId: owner },
        { account: accounts.available(s.merchantId), amount: s.amount, merchantId: s.merchantId },
      ],
    })),
  ];
}

/**
 * The reference of a charge's i-th split in the ledger: a UUID (version 8, RFC 9562) derived from the charge's id and
 * the split's position, so each split can be posted only once (the ledger's unique kind + reference) and is found
 * again from its charge.
 */
export function splitReference(chargeId: string, i: number): string {
  const h = createHash('sha256').update(`${chargeId}:split:${i}`).digest('hex').slice(0, 32).split('');
  h[12] = '8'; // version
  h[16] = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16); // variant 10xx
  const x = h.join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
