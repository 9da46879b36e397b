// The queues' metrics statement: pg-boss' own counts per queue and the wait of each queue's head.
import { statement } from './sql.ts';

/**
 * One row per queue. The counts are pg-boss's own cache on pgboss.queue (refreshed every few seconds by the supervising
 * worker and daemon: counting pgboss.job here would read every retained job); the head's wait is live, from the
 * fetch index (name, priority desc, created_on, start_after) where state < 'active', so a queue nobody drains still
 * shows its age growing even when no supervisor refreshes the counts.
 */
export const QUEUES_SQL = statement(
  'platform.metrics_queues',
  `
select q.name, q.queued_count - q.deferred_count as waiting, q.deferred_count as deferred, q.active_count as active,
       coalesce(extract(epoch from now() - q.monitor_on), -1)::float8 as stats_age,
       coalesce(extract(epoch from now() - h.start_after), 0)::float8 as oldest
  from pgboss.queue q
  left join lateral (
    select j.start_after
      from pgboss.job j
     where j.name = q.name and j.state < 'active' and not j.blocked and j.start_after <= now()
     order by j.priority desc, j.created_on
     limit 1
  ) h on true`,
);
