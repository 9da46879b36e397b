import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError } from '../platform/errors.ts';
import { newId } from '../platform/base.entity.ts';
import { pgArray } from '../platform/sql.ts';

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

// Account ids never change once created: cached per process so a posting does not look them up every time.
const accountIds = new Map<string, string>();

async function accountIdsFor(em: EntityManager, postings: Posting[]): Promise<Map<string, string>> {
  const missing = postings.filter((p) => !accountIds.has(p.account));
  if (missing.length) {
    // creating an account takes no lock on an existing one (do nothing on conflict)
    const created = await em.execute<{ code: string }[]>(
      `insert into ledger_accounts (id, created_at, updated_at, code, merchant_id, balance)
       select id, now(), now(), code, merchant_id, 0 from unnest(?::uuid[], ?::text[], ?::uuid[]) as a(id, code, merchant_id)
       on conflict (code) do nothing returning code`,
      [pgArray(missing.map(() => newId())), pgArray(missing.map((p) => p.account)), pgArray(missing.map((p) => p.merchantId ?? null))],
    );
    const rows = await em.execute<{ id: string; code: string }[]>('select id, code from ledger_accounts where code = any(?::text[])', [pgArray(missing.map((p) => p.account))]);
    const ours = new Set(created.map((r) => r.code));
    // an account this transaction created is not cached: a rollback would leave the cache pointing at nothing
    const found = new Map(rows.map((r) => [r.code, r.id]));
    for (const r of rows) if (!ours.has(r.code)) accountIds.set(r.code, r.id);
    return new Map([...accountIds, ...found]);
  }
  return accountIds;
}

/**
 * Posts one balanced transaction, inside the caller's database transaction. Returns false (and changes nothing)
 * when (kind, referenceId) was already posted: the unique key makes every posting idempotent.
 * A merchant account may never go below zero: the guarded UPDATE refuses, and InsufficientFundsError is thrown.
 * Balances are updated last, with the rows locked in code order: callers post at the end of their transaction so
 * the hot account rows (the platform's, a busy merchant's) stay locked only until the commit right after.
 */
export async function post(em: EntityManager, kind: string, referenceId: string, postings: Posting[]): Promise<boolean> {
  if (postings.reduce((s, p) => s + p.amount, 0) !== 0) throw new Error(`unbalanced ledger transaction ${kind} ${referenceId}`);
  if (new Set(postings.map((p) => p.account)).size !== postings.length) throw new Error(`an account appears twice in ${kind} ${referenceId}`);
  const txId = newId();
  const inserted = await em.execute<{ id: string }[]>(
    `insert into ledger_transactions (id, created_at, updated_at, kind, reference_id) values (?, now(), now(), ?, ?)
     on conflict (kind, reference_id) do nothing returning id`,
    [txId, kind, referenceId],
  );
  if (inserted.length === 0) return false;
  const ids = await accountIdsFor(em, postings);
  const moves = postings.filter((p) => p.amount !== 0).sort((a, b) => a.account.localeCompare(b.account));
  const accountsOf = moves.map((p) => ids.get(p.account)!);
  const amounts = moves.map((p) => p.amount);
  await em.execute(
    `insert into ledger_entries (id, created_at, updated_at, transaction_id, account_id, amount)
     select id, now(), now(), ?, account_id, amount from unnest(?::uuid[], ?::uuid[], ?::bigint[]) as e(id, account_id, amount)`,
    [txId, pgArray(moves.map(() => newId())), pgArray(accountsOf), pgArray(amounts)],
  );
  // lock in a fixed order (no deadlock between two postings), then move the balances; a merchant account never goes negative.
  // NO KEY UPDATE, as the UPDATE itself takes: a plain FOR UPDATE would conflict with the KEY SHARE locks that the
  // entries' foreign keys hold and deadlock two concurrent postings.
  await em.execute('select 1 from ledger_accounts where id = any(?::uuid[]) order by code for no key update', [pgArray(accountsOf)]);
  const updated = await em.execute<{ id: string }[]>(
    `update ledger_accounts a set balance = a.balance + m.amount, updated_at = now()
       from unnest(?::uuid[], ?::bigint[]) as m(account_id, amount)
      where a.id = m.account_id and (a.merchant_id is null or a.balance + m.amount >= 0)
      returning a.id`,
    [pgArray(accountsOf), pgArray(amounts)],
  );
  if (updated.length !== moves.length) throw new InsufficientFundsError();
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
