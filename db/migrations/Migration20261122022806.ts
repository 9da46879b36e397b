import { Migration } from '@mikro-orm/migrations';

export class Migration20261122022806 extends Migration {
  override name = 'Migration20261122022806';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "ledger_transactions" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "kind" varchar(40) not null, "reference_id" uuid not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "ledger_transactions" add constraint "ledger_transactions_kind_reference_id_unique" unique ("kind", "reference_id");`,
    );

    this.addSql(
      `create table "pix_keys" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "type" text not null, "key" varchar(77) not null, "status" text not null default 'ACTIVE', primary key ("id"));`,
    );
    this.addSql(`create index "pix_keys_merchant_id_index" on "pix_keys" ("merchant_id");`);

    this.addSql(
      `create table "ledger_accounts" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "code" varchar(100) not null, "merchant_id" uuid null, "balance" bigint not null default '0', primary key ("id"));`,
    );
    this.addSql(`alter table "ledger_accounts" add constraint "ledger_accounts_code_unique" unique ("code");`);
    this.addSql(`create index "ledger_accounts_merchant_id_index" on "ledger_accounts" ("merchant_id");`);

    this.addSql(
      `create table "ledger_entries" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "transaction_id" uuid not null, "account_id" uuid not null, "amount" bigint not null, primary key ("id"));`,
    );
    this.addSql(`create index "ledger_entries_transaction_id_index" on "ledger_entries" ("transaction_id");`);
    this.addSql(`create index "ledger_entries_account_id_index" on "ledger_entries" ("account_id");`);

    this.addSql(
      `create table "events" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "type" varchar(40) not null, "data" jsonb not null, primary key ("id"));`,
    );
    this.addSql(`create index "events_merchant_id_index" on "events" ("merchant_id");`);

    this.addSql(
      `create table "customers" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "name" varchar(100) not null, "document" varchar(14) not null, "email" varchar(254) null, "phone" varchar(20) null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "customers" add constraint "customers_merchant_id_document_unique" unique ("merchant_id", "document");`,
    );

    this.addSql(
      `create table "charges" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "txid" varchar(35) not null, "amount" int not null, "fee" int not null, "description" varchar(255) not null, "status" text not null default 'PENDING', "expires_in" int not null, "expires_at" timestamptz not null, "customer_id" uuid null, "tracking" jsonb null, "location" varchar(77) not null, "qr_code" text not null, "idempotency_key" varchar(64) null, "request_hash" varchar(64) null, "end_to_end_id" varchar(32) null, "paid_at" timestamptz null, "canceled_at" timestamptz null, "refunded_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "charges" add constraint "charges_txid_unique" unique ("txid");`);
    this.addSql(`alter table "charges" add constraint "charges_end_to_end_id_unique" unique ("end_to_end_id");`);
    this.addSql(
      `create index "charges_merchant_created_idx" on "charges" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "charges_merchant_status_created_idx" on "charges" ("merchant_id", "status", "created_at" desc, "id" desc);`,
    );
    this.addSql(`create index "charges_pending_expiry_idx" on "charges" ("expires_at") where "status" = 'PENDING';`);
    this.addSql(
      `alter table "charges" add constraint "charges_merchant_id_idempotency_key_unique" unique ("merchant_id", "idempotency_key");`,
    );

    this.addSql(
      `create table "webhooks" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "name" varchar(100) null, "url" varchar(2048) not null, "events" text[] not null default '{}', "secret" varchar(100) not null, "status" text not null default 'ACTIVE', "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "webhooks_merchant_id_index" on "webhooks" ("merchant_id");`);

    this.addSql(
      `create table "webhook_deliveries" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "delivery_id" varchar(64) not null, "event_id" uuid not null, "webhook_id" uuid not null, "event_type" varchar(40) not null, "url" varchar(2048) not null, "payload" text not null, "status" text not null default 'PENDING', "attempts" int not null default 0, "status_code" int null, "response" text null, "success" boolean not null default false, "last_attempt_at" timestamptz null, "next_attempt_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_delivery_id_unique" unique ("delivery_id");`,
    );
    this.addSql(
      `create index "webhook_deliveries_webhook_created_idx" on "webhook_deliveries" ("webhook_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "webhook_deliveries_failed_idx" on "webhook_deliveries" ("created_at") where "status" = 'FAILED';`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_webhook_id_unique" unique ("event_id", "webhook_id");`,
    );

    this.addSql(
      `create table "withdrawals" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "amount" int not null, "description" varchar(255) null, "status" text not null default 'PROCESSING', "batch_id" varchar(100) null, "pix_key" varchar(77) not null, "pix_key_type" text not null, "idempotency_key" varchar(64) null, "request_hash" varchar(64) null, "failure_reason" varchar(255) null, "completed_at" timestamptz null, "failed_at" timestamptz null, "returned_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "withdrawals_merchant_created_idx" on "withdrawals" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "withdrawals_processing_idx" on "withdrawals" ("updated_at") where "status" = 'PROCESSING';`,
    );
    this.addSql(
      `alter table "withdrawals" add constraint "withdrawals_merchant_id_idempotency_key_unique" unique ("merchant_id", "idempotency_key");`,
    );

    this.addSql(`alter table "merchants" add "city" varchar(60) not null default 'SAO PAULO';`);

    this.addSql(
      `alter table "pix_keys" add constraint "pix_keys_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );
    this.addSql(
      `alter table "pix_keys" add constraint "pix_keys_type_check" check ("type" in ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'CHAVE_ALEATORIA'));`,
    );
    this.addSql(
      `alter table "pix_keys" add constraint "pix_keys_status_check" check ("status" in ('ACTIVE', 'INACTIVE'));`,
    );

    this.addSql(
      `alter table "ledger_accounts" add constraint "ledger_accounts_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "ledger_accounts" add constraint "ledger_accounts_merchant_balance_check" check ("merchant_id" is null or "balance" >= 0);`,
    );

    this.addSql(
      `alter table "ledger_entries" add constraint "ledger_entries_transaction_id_foreign" foreign key ("transaction_id") references "ledger_transactions" ("id");`,
    );
    this.addSql(
      `alter table "ledger_entries" add constraint "ledger_entries_account_id_foreign" foreign key ("account_id") references "ledger_accounts" ("id");`,
    );

    this.addSql(
      `alter table "events" add constraint "events_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );

    this.addSql(
      `alter table "customers" add constraint "customers_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );

    this.addSql(
      `alter table "charges" add constraint "charges_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );
    this.addSql(
      `alter table "charges" add constraint "charges_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "charges" add constraint "charges_status_check" check ("status" in ('PENDING', 'PAID', 'FAILED', 'CANCELED', 'REFUNDED'));`,
    );

    this.addSql(
      `alter table "webhooks" add constraint "webhooks_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );
    this.addSql(
      `alter table "webhooks" add constraint "webhooks_status_check" check ("status" in ('ACTIVE', 'INACTIVE'));`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_foreign" foreign key ("event_id") references "events" ("id");`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id");`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check ("status" in ('PENDING', 'SUCCEEDED', 'FAILED', 'CANCELED'));`,
    );

    this.addSql(
      `alter table "withdrawals" add constraint "withdrawals_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );
    this.addSql(
      `alter table "withdrawals" add constraint "withdrawals_status_check" check ("status" in ('PROCESSING', 'COMPLETED', 'FAILED'));`,
    );
    this.addSql(
      `alter table "withdrawals" add constraint "withdrawals_pix_key_type_check" check ("pix_key_type" in ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'CHAVE_ALEATORIA'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "ledger_entries" drop constraint "ledger_entries_transaction_id_foreign";`);
    this.addSql(`alter table "ledger_entries" drop constraint "ledger_entries_account_id_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_id_foreign";`);
    this.addSql(`alter table "charges" drop constraint "charges_customer_id_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_webhook_id_foreign";`);

    this.addSql(`drop table if exists "ledger_transactions" cascade;`);
    this.addSql(`drop table if exists "pix_keys" cascade;`);
    this.addSql(`drop table if exists "ledger_accounts" cascade;`);
    this.addSql(`drop table if exists "ledger_entries" cascade;`);
    this.addSql(`drop table if exists "events" cascade;`);
    this.addSql(`drop table if exists "customers" cascade;`);
    this.addSql(`drop table if exists "charges" cascade;`);
    this.addSql(`drop table if exists "webhooks" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "withdrawals" cascade;`);

    this.addSql(`alter table "merchants" drop column "city";`);
  }
}
