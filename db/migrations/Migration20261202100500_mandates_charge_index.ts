import { Migration } from '@mikro-orm/migrations';

// Hand-written: the payment page (GET /pay/:id) looks up the mandate a charge carries (Pix Automático, QR_WITH_PAYMENT
// and DUE_DATE_QR) by mandates.charge_id on every view: an index of the few mandates that have one.
export class Migration20261202100500_mandates_charge_index extends Migration {
  override name = 'Migration20261202100500_mandates_charge_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "mandates_charge_idx" on "mandates" ("charge_id", "created_at" desc) where "charge_id" is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "mandates_charge_idx";`);
  }
}
