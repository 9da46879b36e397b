// The payments' Prometheus metrics: settlement lag and unsettled notifications.
import { Counter, Histogram } from 'prom-client';
import type { Registry } from '../platform/metrics.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import type { PayOutcome } from './settle.ts';
import type { UnsettledOutcome } from './unsettled.ts';

/**
 * Settlement lag, observed by the worker as each payment settles: from the payment's time (the acquirer's horário) to
 * the commit that paid its charge. Redeliveries and payments that paid nothing are left out.
 */
function settlementLag(registry: Registry): (batch: PaymentNotification[], outcomes: PayOutcome[]) => void {
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

export type PaymentMetrics = {
  settled: ReturnType<typeof settlementLag>;
  unsettled: (outcome: UnsettledOutcome) => void;
};

// The worker's payment metrics: the settlement lag, and the notifications that failed on every retry, by what became
// of them (returning: recorded as unmatched and returned; held: never confirmed, kept for an operator; settled or
// ignored: settled meanwhile, or unknown to the acquirer). Any `held` or `returning` wants an operator's look.
export function paymentMetrics(registry: Registry): PaymentMetrics {
  const unsettled = new Counter({
    name: 'pix_payments_unsettled_total',
    help: 'Payment notifications that failed on every retry, by what became of them',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['settled', 'returning', 'held', 'ignored'] as const) unsettled.inc({ outcome }, 0);
  return { settled: settlementLag(registry), unsettled: (outcome) => unsettled.inc({ outcome }) };
}
