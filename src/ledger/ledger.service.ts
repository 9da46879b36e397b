// The ledger: accounts, postings (double entry, balances kept beside them) and the balance read.
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError } from '../platform/errors.ts';
import { newId } from '../platform/base.entity.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './ledger.sql.ts';
import { statementLines, type LedgerKind, type StatementLinks } from './statement.ts';

// Account codes: one "available" and one "blocked" account per merchant, plus the platform's own accounts.
export const accounts = {
  available: (merchantId: string) => `merchant:${merchantId}:available`,
  blocked: (merchantId: string) => `merchant:${merchantId}:blocked`,
  platformFees: 'platform:fees',
  acquirerSettlement: 'acquirer:settlement', // what the acquirer settled to us (in) or sent out for us (out)
  refundsInProgress: 'suspense:refunds', // merchants' refunds the acquirer has not confirmed yet
  unmatchedPayments: 'suspense:unmatched', // payments that paid no charge, until returned to their payers
  medLosses: 'platform:med-losses', // MED refunds a merchant could not cover (the platform's loss)
} as const;

export type Posting = { account: string; amount: number; merchantId?: string };

export class InsufficientFundsError extends BusinessRuleError {
  constructor() {
    super('Saldo insuficiente', 'insufficient_balance');
  }
}

// Account ids never change once created: cached per process so a posting does not look them up every time.
const accountIds = new Map<string, string>();

async function accountIdsFor(em: EntityManager, postings: Posting[]): Promise<Map<string, string>> {
  // in code order, like every lock here: two postings creating the same accounts never wait on each other crosswise
  const missing = [
    ...new Map(postings.filter((p) => !accountIds.has(p.account)).map((p) => [p.account, p])).values(),
  ].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  if (missing.length) {
    // creating an account takes no lock on an existing one (do nothing on conflict)
    const created = await ormSql(em).query<{ code: string }>(sql.CREATE_ACCOUNTS, [
      missing.map(() => newId()),
      missing.map((p) => p.account),
      missing.map((p) => p.merchantId ?? null),
    ]);
    const rows = await ormSql(em).query<{ id: string; code: string }>(sql.ACCOUNT_IDS, [missing.map((p) => p.account)]);
    const ours = new Set(created.map((r) => r.code));
    // an account this transaction created is not cached: a rollback would leave the cache pointing at nothing
    const found = new Map(rows.map((r) => [r.code, r.id]));
    for (const r of rows) if (!ours.has(r.code)) accountIds.set(r.code, r.id);
    return new Map([...accountIds, ...found]);
  }
  return accountIds;
}

// links: the resources the transaction belongs to, shown on its statement lines (statement.ts)
export type LedgerTransaction = { kind: LedgerKind; referenceId: string; postings: Posting[]; links?: StatementLinks };

/**
 * Posts one balanced transaction, inside the caller's database transaction. Returns false (and changes nothing)
 * when (kind, referenceId) was already posted: the unique key makes every posting idempotent.
 * A merchant account may never go below zero: the guarded UPDATE refuses, and InsufficientFundsError is thrown.
 */
export async function post(
  em: EntityManager,
  kind: LedgerKind,
  referenceId: string,
  postings: Posting[],
  links?: StatementLinks,
): Promise<boolean> {
  return (await postMany(em, [{ kind, referenceId, postings, links }])).length === 1;
}

/**
 * Posts several balanced transactions at once (a batch of payments), in one statement whatever their number: the
 * transaction rows (those already posted are skipped), their entries, and each touched account's balance moved by its
 * net change. Returns the reference ids posted now. The account rows are locked in code order by the `locked` step
 * (the UPDATE only reaches a row through it, so no two postings ever wait on each other in opposite orders), with
 * NO KEY UPDATE as the UPDATE itself takes: a plain FOR UPDATE would conflict with the KEY SHARE locks of the entries'
 * foreign keys. The new balance and its guard are computed from the balance `locked` returns, the row as it is once
 * locked (and stays until the commit): the statement's snapshot, which the UPDATE's own scan reads, may predate a
 * credit committed while the statement waited for the lock, and would refuse a debit that the credit covers.
 * Callers post at the end of their transaction, so the hot rows (the platform's, a busy merchant's) stay locked only
 * until the commit right after. A merchant account never goes below zero: the guarded UPDATE skips it, and
 * InsufficientFundsError is thrown (the caller's transaction then rolls everything back).
 */
export async function postMany(em: EntityManager, txs: LedgerTransaction[]): Promise<string[]> {
  for (const { kind, referenceId, postings } of txs) {
    if (postings.reduce((s, p) => s + p.amount, 0) !== 0)
      throw new Error(`unbalanced ledger transaction ${kind} ${referenceId}`);
    if (new Set(postings.map((p) => p.account)).size !== postings.length)
      throw new Error(`an account appears twice in ${kind} ${referenceId}`);
  }
  if (txs.length === 0) return [];
  const ids = txs.map(() => newId());
  // each merchant's lines (one per transaction that moves its money), headed by its available account
  const lines = statementLines(
    txs.map((t) => ({
      kind: t.kind,
      postings: t.postings.map((p) => ({
        ...p,
        blocked: !!p.merchantId && p.account === accounts.blocked(p.merchantId),
      })),
    })),
  );
  const heads = [...new Set(lines.map((l) => l.merchantId))].map((m) => ({
    account: accounts.available(m),
    amount: 0,
    merchantId: m,
  }));
  const accountIds = await accountIdsFor(em, [...txs.flatMap((t) => t.postings), ...heads]);
  const entries = txs.flatMap((t, i) =>
    t.postings
      .filter((p) => p.amount !== 0)
      .map((p) => ({ tx: ids[i], account: accountIds.get(p.account)!, amount: p.amount })),
  );
  const links = (l: (typeof lines)[number]) => txs[l.tx].links ?? {};
  const [result] = await ormSql(em).query<{ posted: string[] | null; moves: number; moved: number }>(sql.POST, [
    ids,
    txs.map((t) => t.kind),
    txs.map((t) => t.referenceId),
    entries.map(() => newId()),
    entries.map((e) => e.tx),
    entries.map((e) => e.account),
    entries.map((e) => e.amount),
    lines.map(() => newId()),
    lines.map((l) => ids[l.tx]),
    lines.map((l) => accountIds.get(accounts.available(l.merchantId))!),
    lines.map((l) => l.merchantId),
    lines.map((l) => l.type),
    lines.map((l) => l.amount),
    lines.map((l) => l.blocked),
    lines.map((l) => links(l).chargeId ?? null),
    lines.map((l) => links(l).withdrawalId ?? null),
    lines.map((l) => links(l).refundId ?? null),
    lines.map((l) => links(l).infractionId ?? null),
  ]);
  if (result.moved !== result.moves) throw new InsufficientFundsError();
  return result.posted ?? [];
}

export async function merchantBalance(
  em: EntityManager,
  merchantId: string,
): Promise<{ available: number; blocked: number }> {
  const rows = await ormSql(em).query<{ code: string; balance: string }>(sql.BALANCES, [
    accounts.available(merchantId),
    accounts.blocked(merchantId),
  ]);
  const of = (code: string) => Number(rows.find((r) => r.code === code)?.balance ?? 0);
  return { available: of(accounts.available(merchantId)), blocked: of(accounts.blocked(merchantId)) };
}

// GET /v1/merchants/me/balance: available can be withdrawn; blocked is held (e.g. by an open infraction).
export async function getBalance(em: EntityManager, merchantId: string) {
  return { ...(await merchantBalance(em, merchantId)), currency: 'BRL' as const };
}
