import { Migration } from '@mikro-orm/migrations';

// Hand-written (issue 32): a RECURRING charges row carries a recurring charge's money and is never listed or counted
// as a charge. The charge_counts trigger functions skip it, and the listing's two indexes keep only the listed rows
// (partial), so the listing's page scan stays index-only with its `"type" <> 'RECURRING'` filter. The statement's new
// type RECURRING_CHARGE_PAID (ledger kind recurring_charge.payment).
export class Migration20261202100000_hidden_charges extends Migration {
  override name = 'Migration20261202100000_hidden_charges';

  override up(): void | Promise<void> {
    for (const [event, table, sign] of [
      ['insert', 'inserted', ''],
      ['delete', 'deleted', '-'],
    ]) {
      this.addSql(
        `create or replace function "charge_counts_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "charge_counts" ("merchant_id", "status", "count") select "merchant_id", "status", ${sign}count(*) from ${table} where "type" <> 'RECURRING' group by "merchant_id", "status"; ` +
          `return null; end; $$ language plpgsql;`,
      );
    }
    this.addSql(
      `create or replace function "charge_counts_status_fn"() returns trigger as $$ begin ` +
        `if new."type" = 'RECURRING' then return null; end if; ` +
        `insert into "charge_counts" ("merchant_id", "status", "count") values (old."merchant_id", old."status", -1), (new."merchant_id", new."status", 1); ` +
        `return null; end; $$ language plpgsql;`,
    );
    this.addSql(`alter table "statement_entries" drop constraint "statement_entries_type_check";`);
    this.addSql(
      `alter table "statement_entries" add constraint "statement_entries_type_check" check ("type" in ('CHARGE_PAID', 'SPLIT_RECEIVED', 'SPLIT_PAID', 'REFUND', 'WITHDRAWAL', 'WITHDRAWAL_REVERSED', 'INFRACTION_BLOCK', 'INFRACTION_RELEASE', 'INFRACTION_REFUND', 'RECURRING_CHARGE_PAID'));`,
    );
    this.addSql(`drop index "charges_merchant_created_idx";`);
    this.addSql(
      `create index "charges_merchant_created_idx" on "charges" ("merchant_id", "created_at" desc, "id" desc) where "type" <> 'RECURRING';`,
    );
    this.addSql(`drop index "charges_merchant_status_created_idx";`);
    this.addSql(
      `create index "charges_merchant_status_created_idx" on "charges" ("merchant_id", "status", "created_at" desc, "id" desc) where "type" <> 'RECURRING';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "statement_entries" drop constraint "statement_entries_type_check";`);
    this.addSql(
      `alter table "statement_entries" add constraint "statement_entries_type_check" check ("type" in ('CHARGE_PAID', 'SPLIT_RECEIVED', 'SPLIT_PAID', 'REFUND', 'WITHDRAWAL', 'WITHDRAWAL_REVERSED', 'INFRACTION_BLOCK', 'INFRACTION_RELEASE', 'INFRACTION_REFUND'));`,
    );
    for (const [event, table, sign] of [
      ['insert', 'inserted', ''],
      ['delete', 'deleted', '-'],
    ]) {
      this.addSql(
        `create or replace function "charge_counts_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "charge_counts" ("merchant_id", "status", "count") select "merchant_id", "status", ${sign}count(*) from ${table} group by "merchant_id", "status"; ` +
          `return null; end; $$ language plpgsql;`,
      );
    }
    this.addSql(
      `create or replace function "charge_counts_status_fn"() returns trigger as $$ begin ` +
        `insert into "charge_counts" ("merchant_id", "status", "count") values (old."merchant_id", old."status", -1), (new."merchant_id", new."status", 1); ` +
        `return null; end; $$ language plpgsql;`,
    );
    this.addSql(`drop index "charges_merchant_created_idx";`);
    this.addSql(
      `create index "charges_merchant_created_idx" on "charges" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(`drop index "charges_merchant_status_created_idx";`);
    this.addSql(
      `create index "charges_merchant_status_created_idx" on "charges" ("merchant_id", "status", "created_at" desc, "id" desc);`,
    );
  }
}
