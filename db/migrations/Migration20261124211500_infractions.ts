import { Migration } from '@mikro-orm/migrations';

export class Migration20261124211500_infractions extends Migration {
  override name = 'Migration20261124211500_infractions';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "infractions" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "merchant_id" uuid not null, "charge_id" uuid not null, "amount" int not null, "status" text not null default 'OPEN', "reason" varchar(255) not null, "defense" text null, "deadline_at" timestamptz not null, "blocked" int not null default 0, "shortfall" int not null default 0, "acquirer_id" varchar(64) null, primary key ("id"));`,
    );
    this.addSql(`create index "infractions_charge_id_index" on "infractions" ("charge_id");`);
    this.addSql(`alter table "infractions" add constraint "infractions_acquirer_id_unique" unique ("acquirer_id");`);
    this.addSql(
      `create index "infractions_merchant_created_idx" on "infractions" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create unique index "infractions_one_open_per_charge" on "infractions" ("charge_id") where "status" in ('OPEN', 'UNDER_REVIEW');`,
    );
    this.addSql(
      `alter table "infractions" add constraint "infractions_status_check" check ("status" in ('OPEN', 'UNDER_REVIEW', 'ACCEPTED', 'REJECTED', 'CANCELED'));`,
    );
    this.addSql(
      `alter table "infractions" add constraint "infractions_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "infractions" add constraint "infractions_charge_id_foreign" foreign key ("charge_id") references "charges" ("id") on update cascade;`,
    );
    this.addSql(
      `insert into "ledger_accounts" ("id", "created_at", "updated_at", "code", "merchant_id", "balance")
       values (gen_random_uuid(), now(), now(), 'platform:med-losses', null, 0) on conflict ("code") do nothing;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "infractions" cascade;`);
  }
}
