import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError } from '../platform/errors.ts';
import { newId } from '../platform/base.entity.ts';

// Account codes: one "available" and one "blocked" account per merchant, plus the platform's own accounts.
export const accounts = {
  available: (merchantId: string) => `merchant:${merchantId}:available`,
  blocked: (merchantId: string) => `merchant:${merchantId}:blocked`,
  platformFees: 'platform:fees',
  acquirerSettlement: 'acquirer:settlement', // what the acquirer settled to us (in) or sent out for us (out)
} as const;

export type Posting = { account: string; amount: number; merchantId?: string };

export class InsufficientFundsError extends BusinessRuleError {
  constructor() {
    super('Saldo insuficiente');
  }
}

/**
 * Posts one balanced transaction, inside the caller's database transaction. Returns false (and changes nothing)
 * when (kind, referenceId) was already posted: the unique key makes every posting idempotent.
 * A merchant account may never go below zero: the guarded UPDATE fails instead, and InsufficientFundsError is thrown.
 */
export async function post(em: EntityManager, kind: string, referenceId: string, postings: Posting[]): Promise<boolean> {
  if (postings.reduce((s, p) => s + p.amount, 0) !== 0) throw new Error(`unbalanced ledger transaction ${kind} ${referenceId}`);
  const txId = newId();
  const inserted = await em.execute<{ id: string }[]>(
    `insert into ledger_transactions (id, created_at, updated_at, kind, reference_id) values (?, now(), now(), ?, ?)
     on conflict (kind, reference_id) do nothing returning id`,
    [txId, kind, referenceId],
  );
  if (inserted.length === 0) return false;
  // Lock accounts in a fixed order so two transactions touching the same accounts cannot deadlock.
  const sorted = [...postings].sort((a, b) => a.account.localeCompare(b.account));
  for (const p of sorted) {
    if (p.amount === 0) continue;
    // A merchant debit is a guarded UPDATE (never below zero); everything else upserts the account.
    const rows = p.merchantId && p.amount < 0
      ? await em.execute<{ id: string }[]>(
        `update ledger_accounts set balance = balance + ?, updated_at = now() where code = ? and balance + ? >= 0 returning id`,
        [p.amount, p.account, p.amount],
      )
      : await em.execute<{ id: string }[]>(
        `insert into ledger_accounts (id, created_at, updated_at, code, merchant_id, balance) values (?, now(), now(), ?, ?, ?)
         on conflict (code) do update set balance = ledger_accounts.balance + excluded.balance, updated_at = now()
         returning id`,
        [newId(), p.account, p.merchantId ?? null, p.amount],
      );
    if (rows.length === 0) throw new InsufficientFundsError();
    await em.execute(
      'insert into ledger_entries (id, created_at, updated_at, transaction_id, account_id, amount) values (?, now(), now(), ?, ?, ?)',
      [newId(), txId, rows[0].id, p.amount],
    );
  }
  return true;
}

export async function merchantBalance(em: EntityManager, merchantId: string): Promise<{ available: number; blocked: number }> {
  const rows = await em.execute<{ code: string; balance: string }[]>(
    'select code, balance from ledger_accounts where code in (?, ?)',
    [accounts.available(merchantId), accounts.blocked(merchantId)],
  );
  const of = (code: string) => Number(rows.find((r) => r.code === code)?.balance ?? 0);
  return { available: of(accounts.available(merchantId)), blocked: of(accounts.blocked(merchantId)) };
}
