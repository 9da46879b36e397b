import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Bench helper: `count` statement lines for one merchant in one statement, one second apart, ending now, numbered 1..n
 * with their running balanceAfter, as postings would have written them. No ledger postings behind them (balances and
 * the statement's head are untouched), so use it on bench databases only. Ends with VACUUM ANALYZE (see
 * seed-withdrawals.ts).
 */
export async function seedStatement(em: EntityManager, merchantId: string, count: number): Promise<void> {
  await em.execute(
    `insert into statement_entries (id, merchant_id, n, type, amount, blocked_amount, balance_after, transaction_id, charge_id, created_at)
     select gen_random_uuid(), ?, g, 'CHARGE_PAID', 100, 0, 100 * g, gen_random_uuid(), gen_random_uuid(), t.at
       from generate_series(1, ?::int) g, lateral (select now() - (? - g) * interval '1 second' as at) t`,
    [merchantId, count, count],
  );
  await em.execute('vacuum analyze statement_entries');
}
