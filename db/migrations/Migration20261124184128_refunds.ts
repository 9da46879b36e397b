import { Migration } from '@mikro-orm/migrations';

export class Migration20261124184128_refunds extends Migration {
  override name = 'Migration20261124184128_refunds';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "unmatched_payments" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "end_to_end_id" varchar(32) not null, "txid" varchar(35) null, "charge_id" uuid null, "amount" int not null, "paid_at" timestamptz not null, "reason" text not null, "status" text not null default 'RETURNING', primary key ("id"));`,
    );
    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_end_to_end_id_unique" unique ("end_to_end_id");`,
    );
    this.addSql(`create index "unmatched_payments_charge_id_index" on "unmatched_payments" ("charge_id");`);

    this.addSql(
      `create table "refunds" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid null, "charge_id" uuid null, "unmatched_payment_id" uuid null, "end_to_end_id" varchar(32) not null, "amount" int not null, "status" text not null default 'PROCESSING', "failure_reason" varchar(255) null, "completed_at" timestamptz null, "failed_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "refunds_merchant_id_index" on "refunds" ("merchant_id");`);
    this.addSql(`create index "refunds_charge_id_index" on "refunds" ("charge_id");`);
    this.addSql(`create index "refunds_unmatched_payment_id_index" on "refunds" ("unmatched_payment_id");`);
    this.addSql(
      `create unique index "refunds_one_in_progress_per_charge" on "refunds" ("charge_id") where "status" = 'PROCESSING';`,
    );
    this.addSql(`create index "refunds_processing_idx" on "refunds" ("updated_at") where "status" = 'PROCESSING';`);

    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_charge_id_foreign" foreign key ("charge_id") references "charges" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_reason_check" check ("reason" in ('UNKNOWN_CHARGE', 'EXPIRED', 'ALREADY_PAID', 'NOT_PAYABLE', 'AMOUNT_MISMATCH'));`,
    );
    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_status_check" check ("status" in ('RETURNING', 'RETURNED', 'RETURN_FAILED'));`,
    );

    this.addSql(
      `alter table "refunds" add constraint "refunds_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_charge_id_foreign" foreign key ("charge_id") references "charges" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_unmatched_payment_id_foreign" foreign key ("unmatched_payment_id") references "unmatched_payments" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_status_check" check ("status" in ('PROCESSING', 'COMPLETED', 'FAILED'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "refunds" drop constraint "refunds_unmatched_payment_id_foreign";`);

    this.addSql(`drop table if exists "unmatched_payments" cascade;`);
    this.addSql(`drop table if exists "refunds" cascade;`);
  }
}
