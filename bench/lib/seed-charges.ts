import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Bench and load-test helper: inserts `count` PAID charges for one merchant in one statement, one second apart,
 * ending now. No ledger postings (balances untouched): bench databases only. The counter triggers keep `total`
 * exact; VACUUM ANALYZE gives the planner the statistics autovacuum eventually would.
 */
export async function seedCharges(em: EntityManager, merchantId: string, count: number): Promise<void> {
  await em.execute(
    `insert into charges (id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in, expires_at,
                          location, qr_code, paid_at)
     select x.id, t.at, t.at, ?, replace(x.id::text, '-', ''), 1000, 10, 'seed', 'PAID', 86400, t.at + interval '1 day',
            'seed.example.com/pix/qr/x', 'seed', t.at
       from generate_series(1, ?::int) g,
            lateral (select now() - (? - g) * interval '1 second' as at) t,
            lateral (select (lpad(to_hex((extract(epoch from t.at) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
                      || '8' || substr(md5(random()::text), 1, 15))::uuid as id) x`,
    [merchantId, count, count],
  );
  await em.execute('vacuum analyze charges');
}
