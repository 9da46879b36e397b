import { Migration } from '@mikro-orm/migrations';

// Hand-written: the sandbox acquirer's transfers, and the per-merchant withdrawal counter kept by statement triggers.
export class Migration20261122024000_withdrawals extends Migration {
  override name = 'Migration20261122024000_withdrawals';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "sandbox_transfers" ("idempotency_key" varchar(100) not null, "amount" int not null, "pix_key" varchar(77) not null, "pix_key_type" text not null, "description" varchar(255) null, "status" text not null, "batch_id" varchar(100) null, "failure_reason" varchar(255) null, "requests" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("idempotency_key"));`,
    );
    this.addSql(
      `alter table "sandbox_transfers" add constraint "sandbox_transfers_pix_key_type_check" check ("pix_key_type" in ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'CHAVE_ALEATORIA'));`,
    );
    this.addSql(
      `alter table "sandbox_transfers" add constraint "sandbox_transfers_status_check" check ("status" in ('PROCESSING', 'COMPLETED', 'FAILED', 'RETURNED'));`,
    );

    this.addSql(
      `create table "withdrawal_counts" ("merchant_id" uuid not null, "shard" smallint not null, "count" bigint not null default '0', primary key ("merchant_id", "shard"));`,
    );
    this.addSql(
      `alter table "withdrawal_counts" add constraint "withdrawal_counts_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`,
    );

    // count(*) of the existing rows once, then the triggers keep it exact.
    this.addSql(
      `insert into "withdrawal_counts" ("merchant_id", "shard", "count") select "merchant_id", 0, count(*) from "withdrawals" group by "merchant_id";`,
    );
    for (const [event, table, sign, rows] of [
      ['insert', 'inserted', '', 'new'],
      ['delete', 'deleted', '-', 'old'],
    ]) {
      this.addSql(
        `create or replace function "withdrawals_count_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "withdrawal_counts" ("merchant_id", "shard", "count") ` +
          `select "merchant_id", floor(random() * 8)::smallint, ${sign}count(*) from ${table} group by "merchant_id" ` +
          `on conflict ("merchant_id", "shard") do update set "count" = "withdrawal_counts"."count" + excluded."count"; ` +
          `return null; end; $$ language plpgsql;`,
      );
      this.addSql(
        `create trigger "count_${event}" after ${event} on "withdrawals" referencing ${rows} table as ${table} ` +
          `for each statement execute function "withdrawals_count_${event}_fn"();`,
      );
    }
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "count_insert" on "withdrawals";`);
    this.addSql(`drop trigger if exists "count_delete" on "withdrawals";`);
    this.addSql(`drop function if exists "withdrawals_count_insert_fn"();`);
    this.addSql(`drop function if exists "withdrawals_count_delete_fn"();`);
    this.addSql(`drop table if exists "withdrawal_counts" cascade;`);
    this.addSql(`drop table if exists "sandbox_transfers" cascade;`);
  }
}
