import { Migration } from '@mikro-orm/migrations';

// The platform's own ledger accounts exist from the start. Created on first use, two settlements could each create
// one and then wait on the other's uncommitted row while holding the lock the other needs (a deadlock: a payment batch
// with an unmatched payment posts twice in one transaction, the second posting creating `suspense:unmatched`).
const CODES = ['acquirer:settlement', 'platform:fees', 'suspense:refunds', 'suspense:unmatched'];

export class Migration20261124210000_platform_accounts extends Migration {
  override name = 'Migration20261124210000_platform_accounts';

  override up(): void | Promise<void> {
    this.addSql(
      `insert into "ledger_accounts" ("id", "created_at", "updated_at", "code", "merchant_id", "balance")
       select gen_random_uuid(), now(), now(), code, null, 0 from unnest(array[${CODES.map((c) => `'${c}'`).join(', ')}])
       as code on conflict ("code") do nothing;`,
    );
  }

  override down(): void | Promise<void> {
    // empty accounts are harmless; accounts with entries must stay
  }
}
