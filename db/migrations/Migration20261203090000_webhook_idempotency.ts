import { Migration } from '@mikro-orm/migrations';

// Hand-written: POST /v1/webhooks/merchant takes an optional x-idempotency-key, as charges, withdrawals and mandates do.
// The key and the request's fingerprint stay on the row after a deletion, so a key is spent once and for all. The
// unique index covers only keyed rows (most webhooks have none). It is built in the migration's transaction, not
// CONCURRENTLY, as every index here is: webhooks is a small table (at most 20 live per merchant).
export class Migration20261203090000_webhook_idempotency extends Migration {
  override name = 'Migration20261203090000_webhook_idempotency';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "webhooks" add column "idempotency_key" varchar(64) null, add column "request_hash" varchar(64) null;`,
    );
    this.addSql(
      `create unique index "webhooks_merchant_idempotency_key_unique" on "webhooks" ("merchant_id", "idempotency_key") where "idempotency_key" is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhooks_merchant_idempotency_key_unique";`);
    this.addSql(`alter table "webhooks" drop column "idempotency_key", drop column "request_hash";`);
  }
}
