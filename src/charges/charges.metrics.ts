// The charges' Prometheus gauges: charges per status, read from the counters.
import type { Logger } from '../platform/logger.ts';
import { scrapeGauges, type Registry, type ScrapeQuery } from '../platform/metrics.ts';
import { BY_STATUS } from './charges.metrics.sql.ts';

// Charges per status, from the append-only counters (charge_counts: about one row per merchant and status after the
// minute's fold), never a count over charges.
export function chargeMetrics(registry: Registry, query: ScrapeQuery, logger: Logger): void {
  scrapeGauges(
    registry,
    'charges',
    { byStatus: { name: 'pix_charges', help: 'Charges per status (all time)', labelNames: ['status'] } },
    async () => ({
      byStatus: (await query<{ status: string; n: string }>(BY_STATUS)).map((r) => ({
        labels: { status: r.status },
        value: Number(r.n),
      })),
    }),
    logger,
  );
}
