import { Migration } from '@mikro-orm/migrations';

// Charges with a due date (the API Pix cobv): the type, the terms (due date, validity after it, rebate, discount,
// fine, interest as JSON, the fee terms frozen at creation) and what a payment paid (paidAmount, its components).
// Every new column is nullable or has a constant default, so adding them rewrites no row; the type's check is added
// NOT VALID and validated apart, under a lock that lets reads and writes go on.
export class Migration20261126120000_due_date_charges extends Migration {
  override name = 'Migration20261126120000_due_date_charges';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "charges" add "type" text not null default 'IMMEDIATE', add "due_date" date null, add "validity_after_due_days" int null, add "rebate" jsonb null, add "discount" jsonb null, add "fine" jsonb null, add "interest" jsonb null, add "fee_bps" int null, add "fee_fixed" int null, add "paid_amount" int null, add "components" jsonb null;`,
    );
    this.addSql(
      `alter table "charges" add constraint "charges_type_check" check ("type" in ('IMMEDIATE', 'DUE_DATE')) not valid;`,
    );
    this.addSql(`alter table "charges" validate constraint "charges_type_check";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "charges" drop constraint "charges_type_check";`);
    this.addSql(
      `alter table "charges" drop column "type", drop column "due_date", drop column "validity_after_due_days", drop column "rebate", drop column "discount", drop column "fine", drop column "interest", drop column "fee_bps", drop column "fee_fixed", drop column "paid_amount", drop column "components";`,
    );
  }
}
