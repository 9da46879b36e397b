// Operator commands of the ledger: verify its invariants.
import type { EntityManager } from '@mikro-orm/postgresql';
import { OpsFailure, type Command } from '../platform/ops.ts';
import * as sql from './ledger.sql.ts';
import { STATEMENT_BROKEN, STATEMENT_DRIFT } from './statement.sql.ts';
import { transactional } from '../platform/transaction.ts';
import { ormSql } from '../platform/sql.ts';

const SHOWN = 100; // problems listed per kind; `problemCount` has the full number

export type LedgerProblem =
  | { type: 'unbalanced_transaction'; transactionId: string; kind: string; referenceId: string; sum: number }
  | { type: 'balance_mismatch'; account: string; balance: number; entriesSum: number }
  | { type: 'negative_merchant_balance'; account: string; balance: number }
  | { type: 'books_not_zero'; sum: number }
  | {
      type: 'statement_mismatch';
      merchantId: string;
      lines: number;
      linesSum: number;
      lastBalanceAfter: number;
      headCount: number;
      headTotal: number;
      balances: number;
    }
  | { type: 'statement_balance_after_broken'; merchantId: string; n: number };

/**
 * The ledger's invariants, read in one REPEATABLE READ snapshot so postings made meanwhile cannot look like drift:
 * every transaction's entries sum to zero; every account's balance equals the sum of its entries; no merchant
 * account is negative; all balances together sum to zero; each merchant's statement has lines 1..n, their amounts sum
 * to its available + blocked, each line's balanceAfter is the previous one's plus its amount (the last: the balance).
 */
export async function verifyLedger(em: EntityManager) {
  return transactional(
    em,
    async (tx) => {
      const { query } = ormSql(tx);
      const count = async (table: keyof typeof sql.COUNT) =>
        Number((await query<{ n: string }>(sql.COUNT[table]))[0].n);
      const [transactions, accounts, entries] = [
        await count('ledger_transactions'),
        await count('ledger_accounts'),
        await count('ledger_entries'),
      ];
      const unbalanced = await query<{ id: string; kind: string; reference_id: string; sum: string; total: string }>(
        sql.UNBALANCED,
        [SHOWN],
      );
      const drifted = await query<{ code: string; balance: string; sum: string; total: string }>(sql.DRIFTED, [SHOWN]);
      const negative = await query<{ code: string; balance: string; total: string }>(sql.NEGATIVE, [SHOWN]);
      const [{ sum: booksSum }] = await query<{ sum: string }>(sql.BOOKS_SUM);
      const statements = await query<{
        merchant_id: string;
        statement_count: string;
        statement_total: string;
        balances: string;
        lines: string;
        sum: string;
        last: string;
        total: string;
      }>(STATEMENT_DRIFT, [SHOWN]);
      const broken = await query<{ merchant_id: string; n: string; total: string }>(STATEMENT_BROKEN, [SHOWN]);

      const problems: LedgerProblem[] = [
        ...unbalanced.map((r) => ({
          type: 'unbalanced_transaction' as const,
          transactionId: r.id,
          kind: r.kind,
          referenceId: r.reference_id,
          sum: Number(r.sum),
        })),
        ...drifted.map((r) => ({
          type: 'balance_mismatch' as const,
          account: r.code,
          balance: Number(r.balance),
          entriesSum: Number(r.sum),
        })),
        ...negative.map((r) => ({
          type: 'negative_merchant_balance' as const,
          account: r.code,
          balance: Number(r.balance),
        })),
        ...(Number(booksSum) !== 0 ? [{ type: 'books_not_zero' as const, sum: Number(booksSum) }] : []),
        ...statements.map((r) => ({
          type: 'statement_mismatch' as const,
          merchantId: r.merchant_id,
          lines: Number(r.lines),
          linesSum: Number(r.sum),
          lastBalanceAfter: Number(r.last),
          headCount: Number(r.statement_count),
          headTotal: Number(r.statement_total),
          balances: Number(r.balances),
        })),
        ...broken.map((r) => ({
          type: 'statement_balance_after_broken' as const,
          merchantId: r.merchant_id,
          n: Number(r.n),
        })),
      ];
      const total = (rows: { total: string }[]) => Number(rows[0]?.total ?? 0);
      const problemCount =
        total(unbalanced) +
        total(drifted) +
        total(negative) +
        (Number(booksSum) !== 0 ? 1 : 0) +
        total(statements) +
        total(broken);
      return { ok: problemCount === 0, transactions, accounts, entries, problemCount, problems };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

export const ledgerCommands: Command[] = [
  {
    name: 'ledger:verify',
    summary:
      'check the ledger: transactions sum to zero, balances equal their entries, no merchant below zero, statements sum to the balances (exit 1 on a problem)',
    flags: {},
    async run({ em }) {
      const report = await verifyLedger(em);
      if (!report.ok) throw new OpsFailure(`${report.problemCount} ledger problem(s) found`, report);
      return report;
    },
  },
];
