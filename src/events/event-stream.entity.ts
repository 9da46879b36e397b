// The event stream's tables: counts per type, positions, pending events and open connections.
import { defineEntity, p } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Event } from '../webhooks/event.entity.ts';

// How many events each merchant has per type, for the listing's `total`: append-only, like charge_counts (the
// statement triggers on `events`, see Event.triggers, insert one +n/-n row per statement, merchant and type; the
// worker folds them every minute, src/platform/counters.ts). Read as a sum.
export const EventCount = defineEntity({
  name: 'EventCount',
  tableName: 'event_counts',
  indexes: [{ name: 'event_counts_keys_idx', properties: ['merchant', 'type'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    type: p.string().length(40),
    count: p.bigint('number').default(0),
  },
});

// Each event's position in the live stream, in commit order (src/events/sequencer.ts): the cursor streams read by.
export const EventStreamPosition = defineEntity({
  name: 'EventStreamPosition',
  tableName: 'event_stream',
  indexes: [{ name: 'event_stream_merchant_seq_idx', properties: ['merchantId', 'seq'] }],
  properties: {
    seq: p.bigint('number').primary().autoincrement(),
    event: () => p.manyToOne(Event).unique().deleteRule('cascade'),
    merchantId: p.uuid(),
  },
});

// Events committed and not yet given a position (filled by the trigger on `events`, emptied by the sequencer).
export const EventStreamPending = defineEntity({
  name: 'EventStreamPending',
  tableName: 'event_stream_pending',
  properties: {
    event: () => p.manyToOne(Event).primary().deleteRule('cascade').updateRule('no action'),
    merchantId: p.uuid(),
  },
});

// The streams open in every API process, refreshed while they stay open: the per-merchant limit counts them.
export const EventStreamConnection = defineEntity({
  name: 'EventStreamConnection',
  tableName: 'event_stream_connections',
  indexes: [{ name: 'event_stream_connections_merchant_idx', properties: ['merchantId', 'seenAt'] }],
  properties: {
    id: p.uuid().primary(),
    merchantId: p.uuid(),
    seenAt: p.datetime(),
  },
});
