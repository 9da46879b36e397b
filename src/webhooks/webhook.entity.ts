import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BaseSchema } from '../platform/base.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { Event } from './event.entity.ts';

// events = [] means every event. A deleted webhook is kept (deletedAt) so its delivery logs stay auditable.
export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  extends: BaseSchema,
  properties: {
    merchant: () => p.manyToOne(Merchant).index(),
    name: p.string().length(100).nullable(),
    url: p.string().length(2048),
    events: p.array().default([]),
    secret: p.string().length(255).hidden(), // sealed: src/platform/secrets.ts
    status: p.enum(['ACTIVE', 'INACTIVE']).default('ACTIVE'),
    deletedAt: p.datetime().nullable(),
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
    event: () => p.manyToOne(Event),
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
