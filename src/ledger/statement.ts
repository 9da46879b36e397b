// The merchant's statement (extrato), pure: which statement type each ledger posting kind is, and the statement lines
// a batch of ledger transactions makes (one per transaction and merchant), written by the posting itself (ledger.sql.ts
// POST) under the lock of the merchant's available account, so `balanceAfter` is exact.

export const STATEMENT_TYPES = [
  'CHARGE_PAID',
  'SPLIT_RECEIVED',
  'SPLIT_PAID',
  'REFUND',
  'WITHDRAWAL',
  'WITHDRAWAL_REVERSED',
  'INFRACTION_BLOCK',
  'INFRACTION_RELEASE',
  'INFRACTION_REFUND',
  'RECURRING_CHARGE_PAID',
] as const;
export type StatementType = (typeof STATEMENT_TYPES)[number];

/**
 * Every ledger posting kind, and the statement type it shows as in each merchant's statement: one type, or one for the
 * merchant it credits and one for the merchant it debits (a split). `null`: the kind never moves a merchant's money.
 * A kind missing here cannot be posted (LedgerKind), and `test/statement.kinds.test.ts` finds every kind in the code.
 * A refund's hold (negative), its release when the acquirer refuses it (positive, the hold given back) and what its
 * completion settles to the owner (positive, rare: a last piece whose fee outgrew it) are all `REFUND`; an infraction
 * that blocks money as the merchant is credited (`infraction.cover`) is an `INFRACTION_BLOCK` like its opening.
 */
export const KIND_TYPES = {
  'charge.payment': 'CHARGE_PAID',
  'recurring_charge.payment': 'RECURRING_CHARGE_PAID', // a Pix Automático recurring charge paid (src/recurring)
  'charge.split': { credit: 'SPLIT_RECEIVED', debit: 'SPLIT_PAID' },
  'refund.hold': 'REFUND',
  'refund.release': 'REFUND',
  'refund.complete': 'REFUND',
  withdrawal: 'WITHDRAWAL',
  'withdrawal.reversal': 'WITHDRAWAL_REVERSED',
  'withdrawal.return': 'WITHDRAWAL_REVERSED',
  'infraction.block': 'INFRACTION_BLOCK',
  'infraction.cover': 'INFRACTION_BLOCK',
  'infraction.release': 'INFRACTION_RELEASE',
  'infraction.refund': 'INFRACTION_REFUND',
  'payment.unmatched': null,
  'unmatched.return': null,
} as const satisfies Record<string, StatementType | { credit: StatementType; debit: StatementType } | null>;
export type LedgerKind = keyof typeof KIND_TYPES;

// The resources a ledger transaction belongs to, shown on each of its statement lines.
export type StatementLinks = { chargeId?: string; withdrawalId?: string; refundId?: string; infractionId?: string };

export function statementType(kind: LedgerKind, amount: number): StatementType {
  const t: StatementType | { credit: StatementType; debit: StatementType } | null = KIND_TYPES[kind];
  if (t === null) throw new Error(`ledger kind ${kind} moves a merchant's money but has no statement type`);
  return typeof t === 'string' ? t : amount < 0 ? t.debit : t.credit;
}

export type StatementLine = {
  tx: number; // the transaction's position in the batch: lines of one merchant are numbered in this order
  merchantId: string;
  amount: number; // the change of available + blocked
  blocked: number; // of which the change of blocked
  type: StatementType;
};

/**
 * The statement lines of a batch of transactions: one per transaction and merchant whose accounts it moves, its amount
 * the change of the merchant's available + blocked (a block between the two is 0, its `blocked` the amount held).
 * A posting of 0 moves nothing and makes no line; a transaction whose postings for a merchant are all 0 neither.
 */
export function statementLines(
  txs: { kind: LedgerKind; postings: { amount: number; merchantId?: string; blocked?: boolean }[] }[],
): StatementLine[] {
  return txs.flatMap(({ kind, postings }, tx) => {
    const byMerchant = new Map<string, { amount: number; blocked: number }>();
    for (const p of postings) {
      if (!p.merchantId || p.amount === 0) continue;
      const m = byMerchant.get(p.merchantId) ?? { amount: 0, blocked: 0 };
      m.amount += p.amount;
      if (p.blocked) m.blocked += p.amount;
      byMerchant.set(p.merchantId, m);
    }
    return [...byMerchant].map(([merchantId, m]) => ({
      tx,
      merchantId,
      ...m,
      type: statementType(kind, m.amount),
    }));
  });
}
