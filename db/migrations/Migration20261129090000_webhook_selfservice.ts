import { Migration } from '@mikro-orm/migrations';

// Hand-written: webhook self-service (contract "Webhooks: self-service for merchants").
// - webhooks: custom `headers`, `rate_limit`, the secret being rotated out (`previous_secret`, sealed like `secret`)
//   and until when it still signs, automatic disabling (`disabled_reason`, `disabled_at`) and `failures`, the times of
//   the last deliveries that failed for good with no success since (at most WEBHOOK_DISABLE_MIN_FAILURES of them):
//   updated in the transaction that records the delivery's final attempt, so disabling never scans the logs.
// - webhook_rate_slots: per rate-limited webhook, the next free sending slot, shared by every daemon.
// - webhook_deliveries: event_id null for test deliveries (no event happened); listing indexes by status and by event.
export class Migration20261129090000_webhook_selfservice extends Migration {
  override name = 'Migration20261129090000_webhook_selfservice';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhooks" add column "headers" jsonb null, add column "rate_limit" int null,
      add column "previous_secret" varchar(255) null, add column "previous_secret_until" timestamptz null,
      add column "disabled_reason" varchar(20) null, add column "disabled_at" timestamptz null,
      add column "failures" timestamptz[] not null default '{}';`);
    this.addSql(
      `create table "webhook_rate_slots" ("webhook_id" uuid not null primary key, "slot_start" timestamptz not null, "next_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "webhook_rate_slots" add constraint "webhook_rate_slots_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "webhook_deliveries" alter column "event_id" drop not null;`);
    this.addSql(
      `create index "webhook_deliveries_webhook_status_idx" on "webhook_deliveries" ("webhook_id", "status", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "webhook_deliveries_webhook_event_idx" on "webhook_deliveries" ("webhook_id", "event_type", "created_at" desc, "id" desc);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhook_deliveries_webhook_event_idx";`);
    this.addSql(`drop index "webhook_deliveries_webhook_status_idx";`);
    this.addSql(`delete from "webhook_deliveries" where "event_id" is null;`);
    this.addSql(`alter table "webhook_deliveries" alter column "event_id" set not null;`);
    this.addSql(`drop table "webhook_rate_slots";`);
    this.addSql(`alter table "webhooks" drop column "headers", drop column "rate_limit", drop column "previous_secret",
      drop column "previous_secret_until", drop column "disabled_reason", drop column "disabled_at", drop column "failures";`);
  }
}
