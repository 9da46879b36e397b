import { Migration } from '@mikro-orm/migrations';

// Each charge keeps the payer's name, email and phone as it was created with: customers are reused per merchant by
// document and hold the latest ones, so a later charge renamed the payer of every earlier charge (and of their
// webhooks). Existing charges get their customer's current values, the best that is left of what they were created
// with. Nullable: a charge without a payer has none.
export class Migration20261126110000_payer_snapshot extends Migration {
  override name = 'Migration20261126110000_payer_snapshot';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "charges" add column "payer_name" varchar(100) null, add column "payer_email" varchar(254) null, add column "payer_phone" varchar(20) null;`,
    );
    // no change of status: the charge_counts trigger (after update of "status") does not fire
    this.addSql(
      `update "charges" c set "payer_name" = cu."name", "payer_email" = cu."email", "payer_phone" = cu."phone" from "customers" cu where cu."id" = c."customer_id";`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "charges" drop column "payer_name", drop column "payer_email", drop column "payer_phone";`,
    );
  }
}
