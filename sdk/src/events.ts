import type { components } from './openapi.ts';

type Schemas = components['schemas'];

// The event names, as the API lists them (GET /v1/webhooks/merchant/events): the nine of charges, withdrawals, PIX
// keys and infractions, and the ten of Pix Automático (mandates and recurring charges).
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
  'mandate.approved',
  'mandate.rejected',
  'mandate.canceled',
  'mandate.expired',
  'recurring_charge.paid',
  'recurring_charge.attempt_failed',
  'recurring_charge.failed',
  'recurring_charge.canceled',
  'recurring_charge.expired',
  'recurring_charge.refunded',
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
  // Pix Automático: the mandate after the change (`cancellation` says who cancelled it)
  'mandate.approved': Schemas['Mandate'];
  'mandate.rejected': Schemas['Mandate'];
  'mandate.canceled': Schemas['Mandate'];
  'mandate.expired': Schemas['Mandate'];
  // the recurring charge after the change, with its attempts (the last one is the attempt that caused the event)
  'recurring_charge.paid': Schemas['RecurringCharge'];
  'recurring_charge.attempt_failed': Schemas['RecurringCharge'];
  'recurring_charge.failed': Schemas['RecurringCharge'];
  'recurring_charge.canceled': Schemas['RecurringCharge'];
  'recurring_charge.expired': Schemas['RecurringCharge'];
  // after a completed refund (`refundedAmount` includes it), and that refund (null when an accepted MED refunded it)
  'recurring_charge.refunded': Schemas['RecurringCharge'] & { refund: Schemas['Refund'] | null };
};

// One delivered (or streamed) event: `{ id, event, createdAt, data }`, a union discriminated by `event`, so
// `if (e.event === 'charge.paid') e.data.paidAt` type-checks.
export type PixEvent = { [E in EventName]: { id: string; event: E; createdAt: string; data: EventData[E] } }[EventName];

export type PixEventOf<E extends EventName> = Extract<PixEvent, { event: E }>;

export const isEventName = (name: string): name is EventName => (EVENT_NAMES as readonly string[]).includes(name);

// Compile-time guard: a new event in the document, or one gone, fails the type-check until both lists follow.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _allNamed: Same<EventName, (typeof EVENT_NAMES)[number]> & Same<EventName, keyof EventData> = true;
