import { Migration } from '@mikro-orm/migrations';

// The table rate-limiter-flexible's RateLimiterPostgres counts in (its own layout, created here so no process needs DDL
// rights at run time; the schema diff skips it, see src/platform/db.ts). Unlogged: one write per API request without
// WAL; a crash only resets counters that live a minute anyway.
export class Migration20261125210000_rate_limits extends Migration {
  override name = 'Migration20261125210000_rate_limits';

  override up(): void | Promise<void> {
    this.addSql(
      `create unlogged table if not exists "rate_limits" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limits";`);
  }
}
