import { Migration } from '@mikro-orm/migrations';

// Hand-written: per (merchant, status) charge counters kept exact by triggers, for the listing's total.
export class Migration20261122031500_charge_counts extends Migration {
  override name = 'Migration20261122031500_charge_counts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "charge_counts" ("merchant_id" uuid not null, "status" text not null, "shard" smallint not null, "count" bigint not null default '0', primary key ("merchant_id", "status", "shard"));`,
    );
    this.addSql(
      `alter table "charge_counts" add constraint "charge_counts_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "charge_counts" add constraint "charge_counts_status_check" check ("status" in ('PENDING', 'PAID', 'FAILED', 'CANCELED', 'REFUNDED'));`,
    );
    this.addSql(
      `insert into "charge_counts" ("merchant_id", "status", "shard", "count") select "merchant_id", "status", 0, count(*) from "charges" group by "merchant_id", "status";`,
    );
    // inserts and deletes: one statement trigger over the transition table (bulk loads stay cheap)
    for (const [event, table, sign, rows] of [
      ['insert', 'inserted', '', 'new'],
      ['delete', 'deleted', '-', 'old'],
    ]) {
      this.addSql(
        `create or replace function "charge_counts_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "charge_counts" ("merchant_id", "status", "shard", "count") ` +
          `select "merchant_id", "status", floor(random() * 8)::smallint, ${sign}count(*) from ${table} group by "merchant_id", "status" ` +
          `on conflict ("merchant_id", "status", "shard") do update set "count" = "charge_counts"."count" + excluded."count"; ` +
          `return null; end; $$ language plpgsql;`,
      );
      this.addSql(
        `create trigger "charge_counts_${event}" after ${event} on "charges" referencing ${rows} table as ${table} ` +
          `for each statement execute function "charge_counts_${event}_fn"();`,
      );
    }
    // status changes (one charge at a time): a row trigger moves one count from the old status to the new one
    this.addSql(
      `create or replace function "charge_counts_status_fn"() returns trigger as $$ begin ` +
        `insert into "charge_counts" values (old."merchant_id", old."status", floor(random() * 8)::smallint, -1) ` +
        `on conflict ("merchant_id", "status", "shard") do update set "count" = "charge_counts"."count" - 1; ` +
        `insert into "charge_counts" values (new."merchant_id", new."status", floor(random() * 8)::smallint, 1) ` +
        `on conflict ("merchant_id", "status", "shard") do update set "count" = "charge_counts"."count" + 1; ` +
        `return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "charge_counts_status" after update of "status" on "charges" for each row when (old."status" is distinct from new."status") execute function "charge_counts_status_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    for (const t of ['status', 'insert', 'delete']) {
      this.addSql(`drop trigger if exists "charge_counts_${t}" on "charges";`);
      this.addSql(`drop function if exists "charge_counts_${t}_fn"();`);
    }
    this.addSql(`drop table if exists "charge_counts" cascade;`);
  }
}
