// The deliveries' Prometheus metrics: outcomes and failures.
import { Counter } from 'prom-client';
import type { Logger } from '../platform/logger.ts';
import { scrapeGauges, type Registry, type ScrapeQuery } from '../platform/metrics.ts';
import { FAILED_7D } from './webhooks.metrics.sql.ts';

// What became of one attempt (or of a delivery canceled before its attempt), as recorded in webhook_deliveries.
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed' | 'canceled';

// The daemon's count of recorded outcomes: counted after the row is written, so a rolled-back write counts nothing.
export function deliveryOutcomes(registry: Registry): (outcome: DeliveryOutcome, n: number) => void {
  const counter = new Counter({
    name: 'pix_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt follows), failed (for good), canceled',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['succeeded', 'retrying', 'failed', 'canceled']) counter.inc({ outcome }, 0); // every series from the start
  return (outcome, n) => counter.inc({ outcome }, n);
}

// Failed for good recently, for the API's /metrics (a daemon on a platform that cannot scrape it): the partial index
// webhook_deliveries_failed_idx (created_at) where status = 'FAILED' reads only failed rows.
export function failedDeliveries(registry: Registry, query: ScrapeQuery, logger: Logger): void {
  scrapeGauges(
    registry,
    'webhooks',
    {
      failed: {
        name: 'pix_webhook_deliveries_failed_7d',
        help: 'Webhook deliveries created in the last 7 days that failed for good (every attempt used)',
        labelNames: [],
      },
    },
    async () => {
      const [row] = await query<{ n: string }>(FAILED_7D);
      return { failed: [{ labels: {}, value: Number(row.n) }] };
    },
    logger,
  );
}
