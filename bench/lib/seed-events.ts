import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Bench helper: inserts `count` events for one merchant in one statement, one second apart, ending now: PIX key
 * updates about `count / 4` keys (four events each, so `?resourceId` finds a few) and one `withdraw.failed` in 50.
 * Ids are UUID v7 built from each row's time, as the API makes them; the triggers count them and queue them for the
 * stream, and they are positioned here (under the sequencer's lock) rather than left to the API's sequencer during
 * the measurement. Ends with VACUUM ANALYZE, as autovacuum eventually would.
 */
export async function seedEvents(em: EntityManager, merchantId: string, count: number): Promise<void> {
  await em.execute(
    `insert into events (id, created_at, updated_at, merchant_id, type, resource_id, data)
     select (lpad(to_hex((extract(epoch from t.at) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
               || '8' || substr(md5(random()::text), 1, 15))::uuid,
            t.at, t.at, ?, case when g % 50 = 0 then 'withdraw.failed' else 'pixkey.updated' end, k.id,
            jsonb_build_object('id', k.id, 'type', 'EMAIL', 'key', 'seed' || (g / 4) || '@example.com',
                               'status', 'ACTIVE', 'createdAt', t.at)
       from generate_series(1, ?::int) g,
            lateral (select now() - (? - g) * interval '1 second' as at) t,
            lateral (select overlay(overlay(md5('seed-key-' || (g / 4)) placing '4' from 13) placing '8' from 17)::uuid as id) k`,
    [merchantId, count, count],
  );
  await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtextextended('pix:event-sequencer', 0))`);
    await tx.execute(
      `with d as (
         delete from event_stream_pending
          where merchant_id = ?
         returning event_id, merchant_id
       )
       insert into event_stream (event_id, merchant_id)
       select event_id, merchant_id
         from d
        order by event_id`,
      [merchantId],
    );
  });
  await em.execute('vacuum analyze events, event_stream, event_stream_pending, event_counts');
}
