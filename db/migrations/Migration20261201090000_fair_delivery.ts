import { Migration } from '@mikro-orm/migrations';

// Hand-written: fair delivery (issue 31). webhook_breakers: a row per webhook whose latest delivery outcomes were
// unhealthy (src/webhooks/breaker.ts): how many in a row, how many times its breaker opened in a row, until when it
// stays open (null: closed), and until when a probe claimed by a daemon may run (null: none out). Read by the daemon with every batch (a left join), written
// only when an outcome is unhealthy or closes it. No entity: the SQL lives in breaker.ts.
export class Migration20261201090000_fair_delivery extends Migration {
  override name = 'Migration20261201090000_fair_delivery';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_breakers" (
      "webhook_id" uuid not null primary key references "webhooks" ("id") on delete cascade,
      "failures" int not null,
      "opened" int not null,
      "open_until" timestamptz null,
      "probe_until" timestamptz null);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "webhook_breakers";`);
  }
}
