import { Migration } from '@mikro-orm/migrations';

// Webhook secrets are stored sealed (`v1:<kid>:<iv>:<tag>:<ciphertext>`, longer than the 100 characters of a plain
// one); existing plaintext rows stay readable until `npm run ops -- secrets:rotate-key` seals them.
export class Migration20261125210100_sealed_secrets extends Migration {
  override name = 'Migration20261125210100_sealed_secrets';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhooks" alter column "secret" type varchar(255);`);
  }

  override down(): void | Promise<void> {
    // sealed values do not fit the old width: the column stays wide
  }
}
