import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Bench and load-test helper: inserts `count` COMPLETED withdrawals for one merchant in one statement, one second
 * apart, ending now. No ledger postings (balances are untouched), so use it on bench databases only.
 * Ids are UUID v7 built from each row's time, as the API makes them; the count triggers keep `total` exact.
 * Ends with VACUUM ANALYZE, as autovacuum eventually would: fresh statistics (else the planner has no idea one merchant
 * owns a million rows) and an all-visible heap (else the listing's index-only scan still visits the table).
 */
export async function seedWithdrawals(em: EntityManager, merchantId: string, count: number): Promise<void> {
  await em.execute(
    `insert into withdrawals (id, created_at, updated_at, merchant_id, amount, description, status, batch_id, pix_key, pix_key_type, completed_at)
     select (lpad(to_hex((extract(epoch from t.at) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
               || '8' || substr(md5(random()::text), 1, 15))::uuid,
            t.at, t.at, ?, 1 + (random() * 99999)::int, null, 'COMPLETED', 'seed-' || g, 'seed@example.com', 'EMAIL', t.at
       from generate_series(1, ?::int) g, lateral (select now() - (? - g) * interval '1 second' as at) t`,
    [merchantId, count, count],
  );
  await em.execute('vacuum analyze withdrawals'); // outside a transaction: autocommit
}
