// The API's probes (health, readiness) and its /metrics.
import { Router, type RequestHandler } from 'express';
import type { Deps } from './deps.ts';
import { createRegistry, httpMetrics, metricsHandler } from './platform/metrics.ts';
import { healthRoutes } from './platform/health.ts';
import { queueMetrics } from './platform/queue-metrics.ts';
import { chargeMetrics } from './charges/charges.metrics.ts';
import { failedDeliveries } from './webhooks/webhooks.metrics.ts';
import { eventStreamMetrics } from './events/events.metrics.ts';
import type { EventStreams } from './events/streams.ts';
import { ormSql } from './platform/sql.ts';
import { PGBOSS_VERSION, SELECT_1 } from './observability.sql.ts';

/**
 * The API's probes and metrics. /metrics carries this process' HTTP and Node metrics plus gauges read from the
 * database at scrape time (queues, charges, failed deliveries, events awaiting a stream position), which also cover the worker and the daemon where
 * their own METRICS_PORT cannot be scraped. `middleware` goes first, so latency covers every other middleware.
 */
export function observability(
  { orm, boss, config, logger }: Deps,
  streams: EventStreams,
): { middleware: RequestHandler; routes: Router } {
  const registry = createRegistry();
  const { query } = ormSql(orm.em.fork());
  queueMetrics(registry, query, logger);
  chargeMetrics(registry, query, logger);
  failedDeliveries(registry, query, logger);
  eventStreamMetrics(registry, query, logger, streams);
  const routes = healthRoutes({
    database: () => query(SELECT_1),
    // through pg-boss' own pool: the queue schema is there and its connections work
    queue: () => boss.getDb().executeSql(PGBOSS_VERSION.text),
  });
  routes.get('/metrics', metricsHandler(registry, config.metricsToken));
  return { middleware: httpMetrics(registry), routes };
}
