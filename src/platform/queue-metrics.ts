// The queues' Prometheus gauges, from pg-boss' own counts.
import type { Logger } from './logger.ts';
import { scrapeGauges, type Registry, type ScrapeQuery } from './metrics.ts';
import { QUEUES_SQL } from './queue-metrics.sql.ts';

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
