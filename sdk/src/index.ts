// @pix-payments/sdk: the typed client, webhook verification and the event stream of the PIX payments API.
export { createPixClient, type PixClient, type PixClientOptions } from './client.ts';
export { EVENT_NAMES, isEventName, type EventData, type EventName, type PixEvent, type PixEventOf } from './events.ts';
export {
  verifyWebhook,
  signWebhook,
  newWebhookSecret,
  WebhookVerificationError,
  type VerifyWebhookInput,
  type WebhookHeaders,
} from './webhooks.ts';
export { streamEvents, StreamError, type StreamEventsOptions, type StreamedEvent } from './stream.ts';
export { listen, type ListenOptions } from './listen.ts';
export { trigger, RECIPES, TriggerError } from './trigger.ts';
export type { paths, components, operations } from './openapi.ts';
