// The queues' Prometheus gauges, from pg-boss' own counts.
import type { Logger } from './logger.ts';
import { scrapeGauges, type Registry, type ScrapeQuery } from './metrics.ts';

/**
 * One row per queue. The counts are pg-boss's own cache on pgboss.queue (refreshed every few seconds by the supervising
 * worker and daemon: counting pgboss.job here would read every retained job); the head's wait is live, from the
 * fetch index (name, priority desc, created_on, start_after) where state < 'active', so a queue nobody drains still
 * shows its age growing even when no supervisor refreshes the counts.
 */
const QUEUES_SQL = `
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
  ) h on true`;

type QueueRow = { name: string; waiting: number; deferred: number; active: number; stats_age: number; oldest: number };

// Queue depth and the wait of the job at each queue's head (the job the next fetch takes), per pg-boss queue.
export function queueMetrics(registry: Registry, query: ScrapeQuery, logger: Logger): void {
  scrapeGauges(
    registry,
    'queues',
    {
      jobs: {
        name: 'pix_queue_jobs',
        help: 'Jobs per pg-boss queue and state: waiting (due), deferred (retry or start later), active',
        labelNames: ['queue', 'state'],
      },
      oldest: {
        name: 'pix_queue_oldest_waiting_seconds',
        help: 'How long the job at the head of each queue has been due without being fetched (0 when none waits)',
        labelNames: ['queue'],
      },
      statsAge: {
        name: 'pix_queue_stats_age_seconds',
        help: "Age of pg-boss's cached counts behind pix_queue_jobs (-1: never computed; no supervising process ran)",
        labelNames: ['queue'],
      },
    },
    async () => {
      const rows = await query<QueueRow>(QUEUES_SQL);
      return {
        jobs: rows.flatMap((r) =>
          (['waiting', 'deferred', 'active'] as const).map((state) => ({
            labels: { queue: r.name, state },
            value: Number(r[state]),
          })),
        ),
        oldest: rows.map((r) => ({ labels: { queue: r.name }, value: Number(r.oldest) })),
        statsAge: rows.map((r) => ({ labels: { queue: r.name }, value: Number(r.stats_age) })),
      };
    },
    logger,
  );
}
