import { Migration } from '@mikro-orm/migrations';

// Splits: the recipients of a charge's net amount, kept on the charge in the order given (null: none), and what each
// gives back of a refund that reverses them (null: the owner bore the refund).
export class Migration20261128090000_splits extends Migration {
  override name = 'Migration20261128090000_splits';

  override up(): void | Promise<void> {
    this.addSql(`alter table "charges" add column "splits" jsonb null;`);
    this.addSql(`alter table "refunds" add column "split_shares" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "refunds" drop column "split_shares";`);
    this.addSql(`alter table "charges" drop column "splits";`);
  }
}
