// The webhooks and webhook_deliveries tables.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Event } from './event.entity.ts';

// events = [] means every event. A deleted webhook is kept (deletedAt) so its delivery logs stay auditable.
export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  extends: BaseSchema,
  indexes: [
    {
      name: 'webhooks_merchant_idempotency_key_unique',
      expression: `create unique index "webhooks_merchant_idempotency_key_unique" on "webhooks" ("merchant_id", "idempotency_key") where "idempotency_key" is not null`,
    },
  ],
  properties: {
    merchant: () => p.manyToOne(Merchant).index(),
    name: p.string().length(100).nullable(),
    url: p.string().length(2048),
    events: p.array().default([]),
    secret: p.string().length(255).hidden(), // sealed: src/platform/secrets.ts
    status: p.enum(['ACTIVE', 'INACTIVE']).default('ACTIVE'),
    deletedAt: p.datetime().nullable(),
    headers: p.json<Record<string, string>>().nullable(), // custom headers sent with every delivery
    rateLimit: p.integer().nullable(), // deliveries per second to this URL, shared by every daemon (rate-limit.ts)
    previousSecret: p.string().length(255).nullable().hidden(), // sealed; still signs until previousSecretUntil
    previousSecretUntil: p.datetime().nullable(),
    disabledReason: p.string().length(20).nullable(), // FAILING: disabled by auto-disable.ts
    disabledAt: p.datetime().nullable(),
    // The final failures since the last success, oldest first, at most WEBHOOK_DISABLE_MIN_FAILURES (auto-disable.ts).
    failures: p.array().columnType('timestamptz[]').default([]).hidden(),
    // The x-idempotency-key of its creation and the fingerprint of that request; kept after a deletion (spent key).
    idempotencyKey: p.string().length(64).nullable().hidden(),
    requestHash: p.string().length(64).nullable().hidden(),
  },
});

// One row per (event, webhook): the delivery log, updated on every attempt. deliveryId is the webhook-id header.
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  extends: BaseSchema,
  uniques: [{ properties: ['event', 'webhook'] }],
  indexes: [
    {
      name: 'webhook_deliveries_webhook_created_idx',
      expression:
        'create index "webhook_deliveries_webhook_created_idx" on "webhook_deliveries" ("webhook_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'webhook_deliveries_failed_idx',
      expression: `create index "webhook_deliveries_failed_idx" on "webhook_deliveries" ("created_at") where "status" = 'FAILED'`,
    },
  ],
  properties: {
    deliveryId: p.string().length(64).unique(),
    event: () => p.manyToOne(Event).nullable(), // null: a test delivery (POST /test), no event happened
    webhook: () => p.manyToOne(Webhook),
    eventType: p.string().length(40),
    url: p.string().length(2048),
    payload: p.text(),
    status: p.enum(['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELED']).default('PENDING'),
    attempts: p.integer().default(0),
    statusCode: p.integer().nullable(),
    response: p.text().nullable(),
    success: p.boolean().default(false),
    lastAttemptAt: p.datetime().nullable(),
    nextAttemptAt: p.datetime().nullable(),
  },
});

export type IWebhook = InferEntity<typeof Webhook>;
