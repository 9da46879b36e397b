import type { components } from './openapi.ts';

type Schemas = components['schemas'];

// The nine event names, as the API lists them (GET /v1/webhooks/merchant/events).
export type EventName = Schemas['EventName'];

export const EVENT_NAMES = [
  'charge.paid',
  'charge.refunded',
  'withdraw.completed',
  'withdraw.failed',
  'withdraw.refunded',
  'pixkey.updated',
  'infraction.received',
  'infraction.updated',
  'infraction.refund_completed',
] as const satisfies readonly EventName[];

// What `data` holds for each event (docs/openapi.yaml, WebhookEvent): the resource after the change.
export type EventData = {
  'charge.paid': Schemas['ChargeWithTracking'];
  // the charge after a completed refund, and that refund (null when an accepted MED infraction refunded it)
  'charge.refunded': Schemas['ChargeWithTracking'] & { refund: Schemas['Refund'] | null };
  'withdraw.completed': Schemas['Withdrawal'];
  'withdraw.failed': Schemas['Withdrawal'];
  'withdraw.refunded': Schemas['Withdrawal'];
  'pixkey.updated': Schemas['PixKey'];
  'infraction.received': Schemas['Infraction'];
  'infraction.updated': Schemas['Infraction'];
  'infraction.refund_completed': Schemas['Infraction'];
};

// One delivered (or streamed) event: `{ id, event, createdAt, data }`, a union discriminated by `event`, so
// `if (e.event === 'charge.paid') e.data.paidAt` type-checks.
export type PixEvent = { [E in EventName]: { id: string; event: E; createdAt: string; data: EventData[E] } }[EventName];

export type PixEventOf<E extends EventName> = Extract<PixEvent, { event: E }>;

export const isEventName = (name: string): name is EventName => (EVENT_NAMES as readonly string[]).includes(name);

// Compile-time guard: a tenth event in the document, or one gone, fails the type-check until both lists follow.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _allNamed: Same<EventName, (typeof EVENT_NAMES)[number]> & Same<EventName, keyof EventData> = true;
