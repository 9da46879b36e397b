// @pix-payments/sdk: the resource helpers over the typed client, webhook verification and the event stream of the PIX payments API.
export { createPixClient, type Pix, type PixClient, type PixClientOptions } from './client.ts';
export { PixApiError } from './errors.ts';
export type { CallOptions, CreateOptions, PixResources } from './resources.ts';
export type { RetryOptions } from './retry.ts';
export { EVENT_NAMES, isEventName, type EventData, type EventName, type PixEvent, type PixEventOf } from './events.ts';
export {
  verifyWebhook,
  signWebhook,
  newWebhookSecret,
  WebhookVerificationError,
  WEBHOOK_ERRORS,
  type PixWebhookVerificationError,
  type WebhookErrorCode,
  type VerifyWebhookInput,
  type WebhookHeaders,
} from './webhooks.ts';
export { streamEvents, StreamError, type StreamEventsOptions, type StreamedEvent } from './stream.ts';
export { listen, type ListenOptions } from './listen.ts';
export { trigger, RECIPES, TriggerError } from './trigger.ts';
export type { paths, components, operations } from './openapi.ts';
