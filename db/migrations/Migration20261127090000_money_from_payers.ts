import { Migration } from '@mikro-orm/migrations';

// A payment's valor reaches the API Pix's 9 999 999 999.99, beyond a 32-bit column: the amounts that can carry one
// (an unmatched payment and the devolução that returns it) become bigint, like the ledger's. A notification the worker
// could not settle after its retries is kept too: UNSETTLED (confirmed, booked and returned) or UNCONFIRMED (the
// acquirer never confirmed it: HELD for an operator, nothing booked).
export class Migration20261127090000_money_from_payers extends Migration {
  override name = 'Migration20261127090000_money_from_payers';

  override up(): void | Promise<void> {
    this.addSql(`alter table "unmatched_payments" alter column "amount" type bigint;`);
    this.addSql(`alter table "refunds" alter column "amount" type bigint;`);
    this.addSql(`alter table "unmatched_payments" drop constraint "unmatched_payments_reason_check";`);
    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_reason_check" check ("reason" in ('UNKNOWN_CHARGE', 'EXPIRED', 'ALREADY_PAID', 'NOT_PAYABLE', 'AMOUNT_MISMATCH', 'UNSETTLED', 'UNCONFIRMED'));`,
    );
    this.addSql(`alter table "unmatched_payments" drop constraint "unmatched_payments_status_check";`);
    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_status_check" check ("status" in ('RETURNING', 'RETURNED', 'RETURN_FAILED', 'HELD'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "unmatched_payments" drop constraint "unmatched_payments_status_check";`);
    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_status_check" check ("status" in ('RETURNING', 'RETURNED', 'RETURN_FAILED'));`,
    );
    this.addSql(`alter table "unmatched_payments" drop constraint "unmatched_payments_reason_check";`);
    this.addSql(
      `alter table "unmatched_payments" add constraint "unmatched_payments_reason_check" check ("reason" in ('UNKNOWN_CHARGE', 'EXPIRED', 'ALREADY_PAID', 'NOT_PAYABLE', 'AMOUNT_MISMATCH'));`,
    );
    this.addSql(`alter table "refunds" alter column "amount" type int;`);
    this.addSql(`alter table "unmatched_payments" alter column "amount" type int;`);
  }
}
