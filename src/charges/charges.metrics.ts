import { Histogram } from 'prom-client';
import type { Logger } from '../platform/logger.ts';
import { scrapeGauges, type Registry, type ScrapeQuery } from '../platform/metrics.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import type { PayOutcome } from './charges.states.ts';

// Charges per status, from the append-only counters (charge_counts: about one row per merchant and status after the
// minute's fold), never a count over charges.
export function chargeMetrics(registry: Registry, query: ScrapeQuery, logger: Logger): void {
  scrapeGauges(
    registry,
    'charges',
    { byStatus: { name: 'pix_charges', help: 'Charges per status (all time)', labelNames: ['status'] } },
    async () => ({
      byStatus: (
        await query<{ status: string; n: string }>('select status, sum(count) as n from charge_counts group by status')
      ).map((r) => ({ labels: { status: r.status }, value: Number(r.n) })),
    }),
    logger,
  );
}

/**
 * Settlement lag, observed by the worker as each payment settles: from the payment's time (the acquirer's horário) to
 * the commit that paid its charge. Redeliveries and payments that paid nothing are left out.
 */
export function settlementLag(registry: Registry): (batch: PaymentNotification[], outcomes: PayOutcome[]) => void {
  const lag = new Histogram({
    name: 'pix_settlement_lag_seconds',
    help: "Time from a payment's time at the acquirer to the settlement that paid its charge",
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });
  return (batch, outcomes) => {
    const now = Date.now();
    batch.forEach((n, i) => {
      if (outcomes[i] === 'paid') lag.observe(Math.max(0, (now - new Date(n.paidAt).getTime()) / 1000));
    });
  };
}
