// The event stream's Prometheus gauges: events not yet positioned, and how long the oldest waited.
import { Counter, Gauge } from 'prom-client';
import type { Logger } from '../platform/logger.ts';
import { scrapeGauges, type Registry, type ScrapeQuery } from '../platform/metrics.ts';
import type { EventStreams } from './streams.ts';
import { PENDING } from './events.metrics.sql.ts';

// The API's event stream metrics: this process' open streams and events written, and (from the database) the
// positioning backlog of the whole deployment.
export function eventStreamMetrics(registry: Registry, query: ScrapeQuery, logger: Logger, streams: EventStreams) {
  new Gauge({
    name: 'pix_event_streams_open',
    help: 'Event streams (GET /v1/events/stream) open in this API process',
    registers: [registry],
    collect() {
      this.set(streams.stats().open);
    },
  });
  const sent = new Counter({
    name: 'pix_event_stream_events_total',
    help: 'Events written to event streams by this API process',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(streams.stats().sent);
    },
  });
  sent.inc(0);
  scrapeGauges(
    registry,
    'event_stream',
    {
      pending: {
        name: 'pix_event_stream_unpositioned',
        help: 'Events committed and not yet given their stream position',
        labelNames: [],
      },
      age: {
        name: 'pix_event_stream_unpositioned_oldest_seconds',
        help: 'Age of the oldest event not yet given its stream position (0 when none)',
        labelNames: [],
      },
    },
    async () => {
      const [row] = await query<{ n: string; age: string }>(PENDING);
      return { pending: [{ labels: {}, value: Number(row.n) }], age: [{ labels: {}, value: Number(row.age) }] };
    },
    logger,
  );
}
