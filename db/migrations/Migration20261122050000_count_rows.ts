import { Migration } from '@mikro-orm/migrations';

// Hand-written: the charge and withdrawal counters become append-only. Each change inserts its own +1/-1 row (no row
// is ever updated, so concurrent payments of one merchant never wait on a counter's lock until their commit) and the
// worker folds them every minute (src/platform/counters.ts). The listing's total is still a sum over a few rows.
export class Migration20261122050000_count_rows extends Migration {
  override name = 'Migration20261122050000_count_rows';

  override up(): void | Promise<void> {
    for (const [table, keys] of [
      ['charge_counts', '"merchant_id", "status"'],
      ['withdrawal_counts', '"merchant_id"'],
    ]) {
      this.addSql(`alter table "${table}" drop constraint "${table}_pkey";`);
      this.addSql(`alter table "${table}" drop column "shard";`);
      this.addSql(`alter table "${table}" add column "id" bigserial primary key;`);
      this.addSql(`create index "${table}_keys_idx" on "${table}" (${keys});`);
      this.addSql(
        `with d as (delete from "${table}" returning ${keys}, "count") insert into "${table}" (${keys}, "count") select ${keys}, sum("count") from d group by ${keys};`,
      );
    }
    for (const [event, table, sign] of [
      ['insert', 'inserted', ''],
      ['delete', 'deleted', '-'],
    ]) {
      this.addSql(
        `create or replace function "charge_counts_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "charge_counts" ("merchant_id", "status", "count") select "merchant_id", "status", ${sign}count(*) from ${table} group by "merchant_id", "status"; ` +
          `return null; end; $$ language plpgsql;`,
      );
      this.addSql(
        `create or replace function "withdrawals_count_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "withdrawal_counts" ("merchant_id", "count") select "merchant_id", ${sign}count(*) from ${table} group by "merchant_id"; ` +
          `return null; end; $$ language plpgsql;`,
      );
    }
    this.addSql(
      `create or replace function "charge_counts_status_fn"() returns trigger as $$ begin ` +
        `insert into "charge_counts" ("merchant_id", "status", "count") values (old."merchant_id", old."status", -1), (new."merchant_id", new."status", 1); ` +
        `return null; end; $$ language plpgsql;`,
    );
  }

  override down(): void | Promise<void> {
    for (const [table, keys, pk] of [
      ['charge_counts', '"merchant_id", "status"', '"merchant_id", "status", "shard"'],
      ['withdrawal_counts', '"merchant_id"', '"merchant_id", "shard"'],
    ]) {
      this.addSql(
        `with d as (delete from "${table}" returning ${keys}, "count") insert into "${table}" (${keys}, "count") select ${keys}, sum("count") from d group by ${keys};`,
      );
      this.addSql(`drop index "${table}_keys_idx";`);
      this.addSql(`alter table "${table}" drop column "id";`);
      this.addSql(`alter table "${table}" add column "shard" smallint not null default 0;`);
      this.addSql(`alter table "${table}" add primary key (${pk});`);
    }
    for (const [event, table, sign] of [
      ['insert', 'inserted', ''],
      ['delete', 'deleted', '-'],
    ]) {
      this.addSql(
        `create or replace function "charge_counts_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "charge_counts" ("merchant_id", "status", "shard", "count") ` +
          `select "merchant_id", "status", floor(random() * 8)::smallint, ${sign}count(*) from ${table} group by "merchant_id", "status" ` +
          `on conflict ("merchant_id", "status", "shard") do update set "count" = "charge_counts"."count" + excluded."count"; ` +
          `return null; end; $$ language plpgsql;`,
      );
      this.addSql(
        `create or replace function "withdrawals_count_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "withdrawal_counts" ("merchant_id", "shard", "count") ` +
          `select "merchant_id", floor(random() * 8)::smallint, ${sign}count(*) from ${table} group by "merchant_id" ` +
          `on conflict ("merchant_id", "shard") do update set "count" = "withdrawal_counts"."count" + excluded."count"; ` +
          `return null; end; $$ language plpgsql;`,
      );
    }
    this.addSql(
      `create or replace function "charge_counts_status_fn"() returns trigger as $$ begin ` +
        `insert into "charge_counts" ("merchant_id", "status", "shard", "count") values (old."merchant_id", old."status", floor(random() * 8)::smallint, -1) ` +
        `on conflict ("merchant_id", "status", "shard") do update set "count" = "charge_counts"."count" - 1; ` +
        `insert into "charge_counts" ("merchant_id", "status", "shard", "count") values (new."merchant_id", new."status", floor(random() * 8)::smallint, 1) ` +
        `on conflict ("merchant_id", "status", "shard") do update set "count" = "charge_counts"."count" + 1; ` +
        `return null; end; $$ language plpgsql;`,
    );
  }
}
