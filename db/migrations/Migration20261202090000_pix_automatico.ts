import { Migration } from '@mikro-orm/migrations';

// Pix Automático (issue 32): mandates (recorrências) and recurring charges (cobranças recorrentes) with their
// append-only counters (src/recurring/*.entity.ts), and the charges row type RECURRING that carries a recurring
// charge's money. Generated from the entities, then trimmed to this change.
export class Migration20261202090000_pix_automatico extends Migration {
  override name = 'Migration20261202090000_pix_automatico';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "recurring_charge_counts" ("id" bigserial primary key, "merchant_id" uuid not null, "status" text not null, "count" bigint not null default '0');`,
    );
    this.addSql(
      `create index "recurring_charge_counts_keys_idx" on "recurring_charge_counts" ("merchant_id", "status");`,
    );
    this.addSql(
      `create table "mandate_counts" ("id" bigserial primary key, "merchant_id" uuid not null, "status" text not null, "count" bigint not null default '0');`,
    );
    this.addSql(`create index "mandate_counts_keys_idx" on "mandate_counts" ("merchant_id", "status");`);
    this.addSql(
      `create table "mandates" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "rec_id" varchar(35) not null, "journey" text not null, "status" text not null default 'CREATED', "customer_name" varchar(100) not null, "customer_document" varchar(14) not null, "contract" varchar(35) not null, "object" varchar(35) not null, "frequency" text not null, "start_date" date not null, "end_date" date null, "amount" int null, "min_amount" int null, "payer_max_amount" int null, "retry_policy" text not null default 'NONE', "expires_at" timestamptz not null, "qr_code" text null, "location" varchar(77) null, "charge_id" uuid null, "payer_account" jsonb null, "request_status" text null, "request_id" varchar(35) null, "auto_charge" jsonb null, "next_cycle" int not null default 0, "auto_charge_on" date null, "cancellation" jsonb null, "history" jsonb not null, "idempotency_key" varchar(64) null, "request_hash" varchar(64) null, primary key ("id"));`,
    );
    this.addSql(`alter table "mandates" add constraint "mandates_rec_id_unique" unique ("rec_id");`);
    this.addSql(
      `create index "mandates_merchant_created_idx" on "mandates" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "mandates_merchant_status_created_idx" on "mandates" ("merchant_id", "status", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "mandates_merchant_document_created_idx" on "mandates" ("merchant_id", "customer_document", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "mandates_auto_charge_idx" on "mandates" ("auto_charge_on") where "status" = 'APPROVED' and "auto_charge" is not null;`,
    );
    this.addSql(`create index "mandates_created_expiry_idx" on "mandates" ("expires_at") where "status" = 'CREATED';`);
    this.addSql(
      `create index "mandates_approved_end_idx" on "mandates" ("end_date") where "status" = 'APPROVED' and "end_date" is not null;`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_merchant_id_idempotency_key_unique" unique ("merchant_id", "idempotency_key");`,
    );
    this.addSql(
      `create table "recurring_charges" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "mandate_id" uuid not null, "charge_id" uuid not null, "txid" varchar(35) not null, "cycle" int not null, "due_date" date not null, "amount" int not null, "description" varchar(140) null, "status" text not null default 'CREATED', "attempts" jsonb not null, "retries_left" int not null, "automatic" boolean not null default false, "paid_at" timestamptz null, "paid_amount" int null, "fee" int null, "idempotency_key" varchar(64) null, "request_hash" varchar(64) null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "recurring_charges" add constraint "recurring_charges_charge_id_unique" unique ("charge_id");`,
    );
    this.addSql(`alter table "recurring_charges" add constraint "recurring_charges_txid_unique" unique ("txid");`);
    this.addSql(
      `create index "recurring_charges_merchant_created_idx" on "recurring_charges" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "recurring_charges_merchant_status_created_idx" on "recurring_charges" ("merchant_id", "status", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "recurring_charges_mandate_created_idx" on "recurring_charges" ("mandate_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create unique index "recurring_charges_one_live_per_cycle" on "recurring_charges" ("mandate_id", "cycle") where "status" not in ('CANCELED', 'FAILED');`,
    );
    this.addSql(
      `create index "recurring_charges_open_due_idx" on "recurring_charges" ("due_date") where "status" in ('CREATED', 'ACTIVE');`,
    );
    this.addSql(
      `alter table "recurring_charges" add constraint "recurring_charges_merchant_id_idempotency_key_unique" unique ("merchant_id", "idempotency_key");`,
    );
    this.addSql(`alter table "charges" drop constraint "charges_type_check";`);
    this.addSql(
      `alter table "charges" add constraint "charges_type_check" check ("type" in ('IMMEDIATE', 'DUE_DATE', 'RECURRING'));`,
    );
    this.addSql(
      `alter table "recurring_charge_counts" add constraint "recurring_charge_counts_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "recurring_charge_counts" add constraint "recurring_charge_counts_status_check" check ("status" in ('CREATED', 'ACTIVE', 'PAID', 'FAILED', 'CANCELED', 'EXPIRED'));`,
    );
    this.addSql(
      `alter table "mandate_counts" add constraint "mandate_counts_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "mandate_counts" add constraint "mandate_counts_status_check" check ("status" in ('CREATED', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELED'));`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_charge_id_foreign" foreign key ("charge_id") references "charges" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_journey_check" check ("journey" in ('PUSH', 'QR', 'QR_WITH_PAYMENT', 'DUE_DATE_QR'));`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_status_check" check ("status" in ('CREATED', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELED'));`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_frequency_check" check ("frequency" in ('WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'));`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_retry_policy_check" check ("retry_policy" in ('NONE', 'THREE_IN_SEVEN_DAYS'));`,
    );
    this.addSql(
      `alter table "mandates" add constraint "mandates_request_status_check" check ("request_status" in ('SENT', 'ACCEPTED', 'REJECTED', 'EXPIRED', 'CANCELED'));`,
    );
    this
      .addSql(`create or replace function "mandate_counts_insert_fn"() returns trigger as $$ begin insert into "mandate_counts" ("merchant_id", "status", "count") select "merchant_id", "status", count(*) from inserted group by
          "merchant_id", "status"; return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "mandate_counts_insert" after insert on "mandates" referencing new table as inserted for each statement execute function "mandate_counts_insert_fn"();`,
    );
    this
      .addSql(`create or replace function "mandate_counts_delete_fn"() returns trigger as $$ begin insert into "mandate_counts" ("merchant_id", "status", "count") select "merchant_id", "status", -count(*) from deleted group by
          "merchant_id", "status"; return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "mandate_counts_delete" after delete on "mandates" referencing old table as deleted for each statement execute function "mandate_counts_delete_fn"();`,
    );
    this.addSql(
      `create or replace function "mandate_counts_status_fn"() returns trigger as $$ begin insert into "mandate_counts" ("merchant_id", "status", "count") values (old."merchant_id", old."status", -1), (new."merchant_id", new."status", 1); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "mandate_counts_status" after update of "status" on "mandates" for each row when (old."status" is distinct from new."status") execute function "mandate_counts_status_fn"();`,
    );
    this.addSql(
      `alter table "recurring_charges" add constraint "recurring_charges_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );
    this.addSql(
      `alter table "recurring_charges" add constraint "recurring_charges_mandate_id_foreign" foreign key ("mandate_id") references "mandates" ("id");`,
    );
    this.addSql(
      `alter table "recurring_charges" add constraint "recurring_charges_charge_id_foreign" foreign key ("charge_id") references "charges" ("id");`,
    );
    this.addSql(
      `alter table "recurring_charges" add constraint "recurring_charges_status_check" check ("status" in ('CREATED', 'ACTIVE', 'PAID', 'FAILED', 'CANCELED', 'EXPIRED'));`,
    );
    this
      .addSql(`create or replace function "recurring_charge_counts_insert_fn"() returns trigger as $$ begin insert into "recurring_charge_counts" ("merchant_id", "status", "count") select "merchant_id", "status", count(*) from inserted group by
          "merchant_id", "status"; return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "recurring_charge_counts_insert" after insert on "recurring_charges" referencing new table as inserted for each statement execute function "recurring_charge_counts_insert_fn"();`,
    );
    this
      .addSql(`create or replace function "recurring_charge_counts_delete_fn"() returns trigger as $$ begin insert into "recurring_charge_counts" ("merchant_id", "status", "count") select "merchant_id", "status", -count(*) from deleted group by
          "merchant_id", "status"; return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "recurring_charge_counts_delete" after delete on "recurring_charges" referencing old table as deleted for each statement execute function "recurring_charge_counts_delete_fn"();`,
    );
    this.addSql(
      `create or replace function "recurring_charge_counts_status_fn"() returns trigger as $$ begin insert into "recurring_charge_counts" ("merchant_id", "status", "count") values (old."merchant_id", old."status", -1), (new."merchant_id", new."status", 1); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "recurring_charge_counts_status" after update of "status" on "recurring_charges" for each row when (old."status" is distinct from new."status") execute function "recurring_charge_counts_status_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "recurring_charges" cascade;`);
    this.addSql(`drop table if exists "recurring_charge_counts" cascade;`);
    this.addSql(`drop table if exists "mandates" cascade;`);
    this.addSql(`drop table if exists "mandate_counts" cascade;`);
    this.addSql(
      `drop function if exists "mandate_counts_insert_fn"(), "mandate_counts_delete_fn"(), "mandate_counts_status_fn"();`,
    );
    this.addSql(
      `drop function if exists "recurring_charge_counts_insert_fn"(), "recurring_charge_counts_delete_fn"(), "recurring_charge_counts_status_fn"();`,
    );
    this.addSql(`alter table "charges" drop constraint "charges_type_check";`);
    this.addSql(
      `alter table "charges" add constraint "charges_type_check" check ("type" in ('IMMEDIATE', 'DUE_DATE'));`,
    );
  }
}
