// The event stream's metrics statement: events committed and not yet positioned, and the oldest one's wait.
import { statement } from '../platform/sql.ts';

// Events committed and not yet positioned for the stream, and for how long the oldest has waited: a sequencer that
// keeps up shows a few at most, for milliseconds.
export const PENDING = statement(
  'events.metrics_pending',
  `
  select count(*) as n, coalesce(extract(epoch from now() - min(e.created_at)), 0) as age
    from event_stream_pending p
    join events e on e.id = p.event_id`,
);
