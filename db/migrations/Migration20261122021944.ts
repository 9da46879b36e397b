import { Migration } from '@mikro-orm/migrations';

export class Migration20261122021944 extends Migration {
  override name = 'Migration20261122021944';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "users" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "email" varchar(254) not null, "password_hash" varchar(255) not null, "role" text not null default 'USER', primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);
    this.addSql(`alter table "users" add constraint "users_role_check" check ("role" in ('USER', 'ADMIN'));`);

    this.addSql(
      `create table "merchants" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "user_id" uuid not null, "name" varchar(100) not null, "document" varchar(14) not null, "status" text not null default 'ACTIVE', "kyc_status" text not null default 'PENDING', "acquirer_account_id" varchar(100) null, "fee_bps" int null, "fee_fixed" int null, primary key ("id"));`,
    );
    this.addSql(`alter table "merchants" add constraint "merchants_user_id_unique" unique ("user_id");`);
    this.addSql(
      `alter table "merchants" add constraint "merchants_status_check" check ("status" in ('ACTIVE', 'BLOCKED'));`,
    );
    this.addSql(
      `alter table "merchants" add constraint "merchants_kyc_status_check" check ("kyc_status" in ('PENDING', 'APPROVED', 'REJECTED'));`,
    );

    this.addSql(
      `create table "api_keys" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "user_id" uuid not null, "name" varchar(100) not null, "description" varchar(255) not null, "prefix" varchar(16) not null, "key_hash" varchar(64) not null, "status" text not null default 'ACTIVE', "last_used_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "api_keys_user_id_index" on "api_keys" ("user_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_status_check" check ("status" in ('ACTIVE', 'INACTIVE'));`,
    );

    this.addSql(
      `alter table "merchants" add constraint "merchants_user_id_foreign" foreign key ("user_id") references "users" ("id");`,
    );

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id");`,
    );
  }
}
