// The statement's reads: a time range of a merchant's lines, and its views.
import type { EntityManager } from '@mikro-orm/postgresql';
import * as sql from './statement.sql.ts';
import { ormSql } from '../platform/sql.ts';

// A time range of the statement: lines with from <= createdAt < until (either open).
export type StatementRange = { from?: Date; until?: Date };

// A statement line as the API (and the CSV) shows it.
export function statementEntryView(r: sql.StatementRow) {
  return {
    id: r.id,
    type: r.type,
    amount: Number(r.amount),
    blockedAmount: Number(r.blocked_amount),
    balanceAfter: Number(r.balance_after),
    // a recurring charge's money moves on a charges row never shown: the line names the recurring charge instead
    chargeId: r.recurring_charge_id ? null : r.charge_id,
    withdrawalId: r.withdrawal_id,
    refundId: r.refund_id,
    infractionId: r.infraction_id,
    recurringChargeId: r.recurring_charge_id,
    createdAt: new Date(r.created_at).toISOString(),
  };
}
export type StatementEntryView = ReturnType<typeof statementEntryView>;

// The n range of the lines in a time range (statement.sql.ts BOUNDS): lo < n <= hi.
export async function statementBounds(em: EntityManager, merchantId: string, range: StatementRange) {
  const [b] = await ormSql(em).query<{ hi: string; lo: string }>(sql.BOUNDS, [
    merchantId,
    range.until ?? 'infinity',
    merchantId,
    range.from ?? '-infinity',
  ]);
  return { hi: Number(b.hi), lo: Number(b.lo) };
}

// Lines lo < n <= hi, newest first, at most `limit`.
export async function statementLinesBetween(
  em: EntityManager,
  merchantId: string,
  hi: number,
  lo: number,
  limit: number,
): Promise<StatementEntryView[]> {
  const rows = await ormSql(em).query<sql.StatementRow>(sql.LINES, [merchantId, hi, lo, limit]);
  return rows.map(statementEntryView);
}

/**
 * GET /v1/merchants/me/statement: the merchant's ledger movements, newest first. The bounds and the page are two index
 * lookups whatever the page: lines are numbered without gaps, so page p is n <= hi - (p - 1) × limit.
 */
export async function getStatement(
  em: EntityManager,
  merchantId: string,
  { page, limit, ...range }: StatementRange & { page: number; limit: number },
) {
  const { hi, lo } = await statementBounds(em, merchantId, range);
  const top = hi - (page - 1) * limit;
  const entries = top > lo ? await statementLinesBetween(em, merchantId, top, lo, limit) : [];
  return { page, limit, total: hi - lo, entries };
}

const EXPORT_BATCH = 1000;

/**
 * Every line of a time range, newest first, read in batches of EXPORT_BATCH down the (merchant_id, n) index (the
 * CSV export): the range is fixed when the export starts, so lines posted meanwhile are not in it.
 */
export async function statementExport(em: EntityManager, merchantId: string, range: StatementRange) {
  const { hi, lo } = await statementBounds(em, merchantId, range);
  async function* lines() {
    for (let top = hi; top > lo; top -= EXPORT_BATCH)
      yield* await statementLinesBetween(em, merchantId, top, lo, EXPORT_BATCH);
  }
  return { total: hi - lo, lines: lines() };
}
