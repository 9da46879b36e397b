import { Migration } from '@mikro-orm/migrations';

// Hand-written: the API processes keep what a credential resolves to (src/auth/principal-cache.ts) and forget it the
// moment the database says it changed. Statement triggers notify 'pix_principals' on every change to the columns a
// principal carries (auth.sql.ts PRINCIPAL_BY_*): an API key's status, hash or owner, a user's role, a merchant's
// status, KYC, fees, names, acquirer account or owner, and any of their rows inserted, deleted or truncated. Triggers,
// not the code that writes: an operator's script or a hand-run UPDATE notifies as well. The notification is sent when
// its transaction commits, never for one rolled back; the last-used time of a key (written once a minute) is not
// listed, so it notifies nothing.
export class Migration20261130090000_principal_changes extends Migration {
  override name = 'Migration20261130090000_principal_changes';

  override up(): void | Promise<void> {
    this.addSql(`create function "notify_principals"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('pix_principals', '');
        return null;
      end $$;`);
    this.addSql(`create trigger "api_keys_principals" after insert or update of "status", "key_hash", "user_id"
      or delete or truncate on "api_keys" for each statement execute function "notify_principals"();`);
    this.addSql(`create trigger "users_principals" after insert or update of "id", "role" or delete or truncate
      on "users" for each statement execute function "notify_principals"();`);
    this.addSql(`create trigger "merchants_principals" after insert or update of "id", "user_id", "status", "name",
      "city", "kyc_status", "acquirer_account_id", "fee_bps", "fee_fixed" or delete or truncate
      on "merchants" for each statement execute function "notify_principals"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "merchants_principals" on "merchants";`);
    this.addSql(`drop trigger "users_principals" on "users";`);
    this.addSql(`drop trigger "api_keys_principals" on "api_keys";`);
    this.addSql(`drop function "notify_principals"();`);
  }
}
