import { Migration } from '@mikro-orm/migrations';

// Partial and multiple refunds (contract "Refunds: partial and multiple"): several refunds of a charge may be
// PROCESSING at once (the one-in-progress index goes); each keeps what the platform gives back of the fee
// (`fee_amount`, the merchant gives the rest), the merchant's reason (the devolução's descricao), its idempotency key
// and what of the charge was refunded before it (its creation's body, replayed); the charge keeps the sum of its
// COMPLETED refunds (`refunded_amount`). Existing refunds were whole: the whole fee, the whole charge.
export class Migration20261127100000_partial_refunds extends Migration {
  override name = 'Migration20261127100000_partial_refunds';

  override up(): void | Promise<void> {
    this.addSql(`drop index if exists "refunds_one_in_progress_per_charge";`);
    this.addSql(
      `alter table "refunds" add column "fee_amount" int not null default 0, add column "reason" varchar(140) null, add column "refunded_before" int null, add column "idempotency_key" varchar(64) null, add column "request_hash" varchar(64) null;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_merchant_id_idempotency_key_unique" unique ("merchant_id", "idempotency_key");`,
    );
    this.addSql(
      `create index "refunds_charge_created_idx" on "refunds" ("charge_id", "created_at" desc, "id" desc) where "charge_id" is not null;`,
    );
    this.addSql(
      `update "refunds" r set "fee_amount" = c."fee", "refunded_before" = 0 from "charges" c where c."id" = r."charge_id";`,
    );
    this.addSql(`alter table "charges" add column "refunded_amount" int not null default 0;`);
    // no change of status: the charge_counts trigger (after update of "status") does not fire
    this.addSql(
      `update "charges" c set "refunded_amount" = r."sum" from (select "charge_id", sum("amount") as "sum" from "refunds" where "status" = 'COMPLETED' and "charge_id" is not null group by "charge_id") r where r."charge_id" = c."id";`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "charges" drop column "refunded_amount";`);
    this.addSql(`drop index if exists "refunds_charge_created_idx";`);
    this.addSql(`alter table "refunds" drop constraint "refunds_merchant_id_idempotency_key_unique";`);
    this.addSql(
      `alter table "refunds" drop column "fee_amount", drop column "reason", drop column "refunded_before", drop column "idempotency_key", drop column "request_hash";`,
    );
    this.addSql(
      `create unique index "refunds_one_in_progress_per_charge" on "refunds" ("charge_id") where "status" = 'PROCESSING';`,
    );
  }
}
