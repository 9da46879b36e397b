import { Histogram } from 'prom-client';
import type { Registry } from '../platform/metrics.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import type { PayOutcome } from '../charges/charges.states.ts';

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
