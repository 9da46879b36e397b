// The events table: every event a merchant's change caused.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { countTrigger } from '../platform/counters.ts';
import { Merchant } from '../merchants/merchant.entity.ts';

const count = (event: 'insert' | 'delete') =>
  countTrigger(
    {
      table: 'events',
      counter: 'event_counts',
      keys: '"merchant_id", "type"',
      name: `count_${event}`,
      fn: `events_count_${event}_fn`,
    },
    event,
  );

// Every event enters the live stream (src/events): in the transaction that records it, it is queued for a position
// (event_stream_pending) and the sequencer is woken (NOTIFY pix_events, delivered at commit). Declared here so the
// schema diff knows it; created by the event_stream migration.
const STREAM_PENDING = {
  name: 'stream_pending',
  timing: 'after' as const,
  events: ['insert' as const],
  forEach: 'statement' as const,
  expression:
    `create or replace function "events_pending_fn"() returns trigger as $$ begin ` +
    `insert into "event_stream_pending" ("event_id", "merchant_id") select "id", "merchant_id" from inserted; ` +
    `perform pg_notify('pix_events', ''); return null; end; $$ language plpgsql;\n` +
    `create trigger "stream_pending" after insert on "events" referencing new table as inserted ` +
    `for each statement execute function "events_pending_fn"();`,
};

// Something that happened to a merchant's money, written in the transaction of the change that caused it.
// resourceId: the id of the resource in `data` (the charge, withdrawal, PIX key or infraction), for the listing's
// filter.
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  extends: BaseSchema,
  triggers: [count('insert'), count('delete'), STREAM_PENDING],
  indexes: [
    {
      name: 'events_merchant_created_idx',
      expression:
        'create index "events_merchant_created_idx" on "events" ("merchant_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'events_merchant_type_created_idx',
      expression:
        'create index "events_merchant_type_created_idx" on "events" ("merchant_id", "type", "created_at" desc, "id" desc)',
    },
    {
      name: 'events_resource_idx',
      expression: 'create index "events_resource_idx" on "events" ("resource_id") where "resource_id" is not null',
    },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant),
    type: p.string().length(40),
    resourceId: p.uuid().nullable(),
    data: p.json<Record<string, unknown>>(),
  },
});

export type IEvent = InferEntity<typeof Event>;
