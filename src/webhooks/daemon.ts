// The webhook delivery daemon: deliver jobs worked slot by slot, woken by NOTIFY.
import type { PgBoss } from 'pg-boss';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { BOSS_CHANNEL, QUEUES, RECOVERY_POLL_SECONDS } from '../platform/queue.ts';
import { createPgPool } from '../platform/pg.ts';
import { canPrepare } from '../platform/prepared.ts';
import { processMetrics } from '../platform/metrics.ts';
import { createListener } from '../platform/listener.ts';
import { lockFetches, startSlotWorker } from '../platform/slot-worker.ts';
import { deliveryOutcomes } from './webhooks.metrics.ts';
import { deliverBatch, type DeliverContext } from './deliver.ts';
import { createSender } from './sender.ts';
import { signingKeyCache } from './signing-keys.ts';
import { breakerSettings } from './breaker.ts';

// Retries due within this many seconds get an in-process wake-up; later ones are found by the backstop poll.
const WAKE_WITHIN_SECONDS = 15 * 60;
// How long a stopping daemon waits for the POSTs in flight before leaving them to a supervisor's retry.
const STOP_TIMEOUT_MS = 20_000;

export type DaemonDeps = { config: Config; boss: PgBoss; logger: Logger };

/**
 * The webhook delivery daemon (apps/webhooks). Its WEBHOOK_CONCURRENCY slots are worked one by one (slot-worker.ts):
 * a delivery holds a slot only while its own POST runs. A quarter of them are reserved for merchants with fewer than
 * WEBHOOK_MERCHANT_CONCURRENCY deliveries in flight across every daemon, so an endpoint that hangs, or a backlog of
 * one merchant, delays no one else; the others go first come, first served (a lone merchant uses them all). New jobs
 * wake it through LISTEN/NOTIFY within milliseconds of their commit; polling is only the backstop. Future-dated
 * retries send no NOTIFY, hence the wake-up timers. Returns its stop function: no new fetch, then the POSTs in flight
 * end (or are left to a supervisor's retry after STOP_TIMEOUT_MS).
 */
export async function startDeliveryDaemon({ boss, config, logger }: DaemonDeps): Promise<() => Promise<void>> {
  const db = createPgPool(config.databaseUrl, config.dbPoolMax, logger, 'webhooks', canPrepare(config));
  const capacity = config.webhookConcurrency;
  const sender = createSender({
    production: config.publicWebhooksOnly,
    timeoutMs: config.webhookTimeoutMs,
    maxSockets: capacity,
  });
  const registry = await processMetrics(config, boss, logger);

  const wakes = new Set<number>(); // wake-up instants already scheduled, to 10 ms, so a failing batch sets one timer
  const wake = () => worker.wake();
  const ctx: DeliverContext = {
    db,
    boss,
    sender,
    signingKeys: signingKeyCache(config.secrets),
    retryScale: config.webhookRetryScale,
    disable: {
      minFailures: config.webhookDisableMinFailures,
      afterSeconds: config.webhookDisableAfterHours * 3600 * config.webhookRetryScale,
    },
    breaker: breakerSettings(config.webhookBreakerThreshold, config.webhookTimeoutMs, config.webhookRetryScale),
    logger,
    count: registry ? deliveryOutcomes(registry) : undefined,
    wakeAfter: (seconds) => {
      if (seconds > WAKE_WITHIN_SECONDS) return;
      const at = Math.ceil((Date.now() + seconds * 1000) / 10) * 10 + 5;
      if (wakes.has(at)) return;
      wakes.add(at);
      setTimeout(() => {
        wakes.delete(at);
        wake();
      }, at - Date.now()).unref();
    },
  };

  // NOTIFY of pg-boss' inserts (the business transaction's, a retry's, a replay's), heard on the daemon's own LISTEN
  // connection; while it is down the daemon polls every second.
  const listener = createListener(config, logger, 'webhooks-listen');
  const worker = startSlotWorker(
    boss,
    QUEUES.webhookDeliver,
    {
      capacity,
      minFetch: Math.max(1, Math.floor(capacity / 8)),
      pollSeconds: () => (listener.up ? RECOVERY_POLL_SECONDS : 1),
      reserved: {
        slots: Math.ceil(capacity / 4),
        groupLimit: config.webhookMerchantConcurrency,
        fetchIn: (fetch) =>
          db.tx(async (sql) => {
            await lockFetches(sql, QUEUES.webhookDeliver);
            return fetch(sql.jobs);
          }),
      },
    },
    (jobs, finish) => deliverBatch(ctx, jobs, finish),
    logger,
  );
  listener.on(BOSS_CHANNEL, (queue) => queue === QUEUES.webhookDeliver && wake());
  listener.onState((up) => up && wake()); // a notification sent while it was down is lost: look now

  logger.info(
    {
      concurrency: capacity,
      perMerchant: config.webhookMerchantConcurrency,
      timeoutMs: config.webhookTimeoutMs,
      retryScale: config.webhookRetryScale,
    },
    'webhook daemon ready',
  );

  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      await worker.stop(STOP_TIMEOUT_MS);
      await listener.close();
      sender.close();
      await db.close().catch((err: unknown) => logger.warn({ err }, 'closing the daemon pool failed'));
    })());
}
