// The statement_entries table: a merchant's statement (extrato), one line per transaction.
import { defineEntity, p } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.ts';
import { STATEMENT_TYPES } from './statement.ts';

/**
 * A merchant's statement (extrato): one line per ledger transaction that moved its money, written by the posting in
 * the same statement (ledger.sql.ts POST), under the lock of the merchant's available account. `n` numbers the
 * merchant's lines 1, 2, 3… in posting order, with no gap (the account row keeps the last: `statement_count`), so a
 * page, a `from`/`to` range and its total are index lookups, never a count or a deep OFFSET over a million rows.
 * `created_at` never decreases along `n` (the posting takes the later of now() and the previous line's). Append-only.
 */
export const StatementEntry = defineEntity({
  name: 'StatementEntry',
  tableName: 'statement_entries',
  uniques: [{ name: 'statement_entries_merchant_n_unique', properties: ['merchant', 'n'] }],
  indexes: [{ name: 'statement_entries_merchant_created_idx', properties: ['merchant', 'createdAt', 'n'] }],
  properties: {
    id: p.uuid().primary(),
    merchant: () => p.manyToOne(Merchant),
    n: p.bigint('number'),
    type: p.enum([...STATEMENT_TYPES]),
    amount: p.bigint('number'), // signed: the change of available + blocked
    blockedAmount: p.bigint('number'), // of which the change of blocked
    balanceAfter: p.bigint('number'), // available + blocked after this line
    transactionId: p.uuid(), // the ledger transaction
    chargeId: p.uuid().nullable(),
    withdrawalId: p.uuid().nullable(),
    refundId: p.uuid().nullable(),
    infractionId: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
});
