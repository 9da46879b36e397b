// The ledger's tables: accounts, transactions and entries (double entry).
import { defineEntity, p } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';

// Double-entry ledger. An account's balance is kept beside it and always equals the sum of its entries
// (ledger:verify proves it). Entries of one transaction sum to zero. Sign: + increases what the account holds.
export const LedgerAccount = defineEntity({
  name: 'LedgerAccount',
  tableName: 'ledger_accounts',
  extends: BaseSchema,
  checks: [{ name: 'ledger_accounts_merchant_balance_check', expression: `"merchant_id" is null or "balance" >= 0` }],
  properties: {
    code: p.string().length(100).unique(),
    merchant: () => p.manyToOne(Merchant).nullable().index(),
    balance: p.bigint('number').default(0),
    // a merchant's available account also heads its statement (statement.entity.ts): how many lines it has, what
    // they sum to (= available + blocked) and when the last was written; every posting that moves the merchant's
    // money updates them under this row's lock
    statementCount: p.bigint('number').default(0),
    statementTotal: p.bigint('number').default(0),
    statementAt: p.datetime().nullable(),
  },
});

// kind + reference is unique: the same business fact (a payment, a withdrawal, a refund) can never be posted twice.
export const LedgerTransaction = defineEntity({
  name: 'LedgerTransaction',
  tableName: 'ledger_transactions',
  extends: BaseSchema,
  uniques: [{ properties: ['kind', 'referenceId'] }],
  properties: {
    kind: p.string().length(40),
    referenceId: p.uuid(),
  },
});

export const LedgerEntry = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entries',
  extends: BaseSchema,
  properties: {
    transaction: () => p.manyToOne(LedgerTransaction).index(),
    account: () => p.manyToOne(LedgerAccount).index(),
    amount: p.bigint('number'),
  },
});
