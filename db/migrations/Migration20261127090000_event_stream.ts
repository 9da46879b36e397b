import { Migration } from '@mikro-orm/migrations';

const UUID = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

// Hand-written: the events API and the live stream (src/events).
// - events.resource_id: the id of the resource in `data` (charge, withdrawal, PIX key, infraction), for ?resourceId.
// - listing indexes (merchant, [type,] created_at desc, id desc) and the append-only counter event_counts (merchant,
//   type), as charges and withdrawals list.
// - event_stream: each event's position in commit order (seq), given after its commit by the one sequencer that holds
//   the advisory lock; event_stream_pending: events committed and not yet given a position, filled by a trigger in the
//   transaction that records the event (which also NOTIFYs pix_events, to wake the sequencer).
// - event_stream_connections: the open streams of every API process, for the per-merchant limit.
export class Migration20261127090000_event_stream extends Migration {
  override name = 'Migration20261127090000_event_stream';

  override up(): void | Promise<void> {
    this.addSql(`alter table "events" add column "resource_id" uuid null;`);
    this.addSql(
      `update "events" set "resource_id" = ("data"->>'id')::uuid where "data"->>'id' ~ ${UUID} and "resource_id" is null;`,
    );
    this.addSql(`drop index if exists "events_merchant_id_index";`);
    this.addSql(
      `create index "events_merchant_created_idx" on "events" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "events_merchant_type_created_idx" on "events" ("merchant_id", "type", "created_at" desc, "id" desc);`,
    );
    this.addSql(`create index "events_resource_idx" on "events" ("resource_id") where "resource_id" is not null;`);

    this.addSql(
      `create table "event_counts" ("id" bigserial primary key, "merchant_id" uuid not null, "type" varchar(40) not null, "count" bigint not null default '0');`,
    );
    this.addSql(
      `alter table "event_counts" add constraint "event_counts_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`,
    );
    this.addSql(`create index "event_counts_keys_idx" on "event_counts" ("merchant_id", "type");`);
    this.addSql(
      `insert into "event_counts" ("merchant_id", "type", "count") select "merchant_id", "type", count(*) from "events" group by "merchant_id", "type";`,
    );
    for (const [event, table, sign, ref] of [
      ['insert', 'inserted', '', 'new'],
      ['delete', 'deleted', '-', 'old'],
    ]) {
      this.addSql(
        `create or replace function "events_count_${event}_fn"() returns trigger as $$ begin ` +
          `insert into "event_counts" ("merchant_id", "type", "count") select "merchant_id", "type", ${sign}count(*) from ${table} group by "merchant_id", "type"; ` +
          `return null; end; $$ language plpgsql;`,
      );
      this.addSql(
        `create trigger "count_${event}" after ${event} on "events" referencing ${ref} table as ${table} ` +
          `for each statement execute function "events_count_${event}_fn"();`,
      );
    }

    this.addSql(
      `create table "event_stream" ("seq" bigserial primary key, "event_id" uuid not null, "merchant_id" uuid not null);`,
    );
    this.addSql(
      `alter table "event_stream" add constraint "event_stream_event_id_foreign" foreign key ("event_id") references "events" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "event_stream" add constraint "event_stream_event_id_unique" unique ("event_id");`);
    this.addSql(`create index "event_stream_merchant_seq_idx" on "event_stream" ("merchant_id", "seq");`);
    // the events recorded before: their positions in creation order (no stream could have shown them yet)
    this.addSql(
      `insert into "event_stream" ("event_id", "merchant_id") select "id", "merchant_id" from "events" order by "created_at", "id";`,
    );
    this.addSql(
      `create table "event_stream_pending" ("event_id" uuid not null primary key, "merchant_id" uuid not null);`,
    );
    this.addSql(
      `alter table "event_stream_pending" add constraint "event_stream_pending_event_id_foreign" foreign key ("event_id") references "events" ("id") on delete cascade;`,
    );
    this.addSql(
      `create or replace function "events_pending_fn"() returns trigger as $$ begin ` +
        `insert into "event_stream_pending" ("event_id", "merchant_id") select "id", "merchant_id" from inserted; ` +
        `perform pg_notify('pix_events', ''); ` +
        `return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "stream_pending" after insert on "events" referencing new table as inserted ` +
        `for each statement execute function "events_pending_fn"();`,
    );

    this.addSql(
      `create table "event_stream_connections" ("id" uuid not null primary key, "merchant_id" uuid not null, "seen_at" timestamptz not null);`,
    );
    this.addSql(
      `create index "event_stream_connections_merchant_idx" on "event_stream_connections" ("merchant_id", "seen_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "event_stream_connections";`);
    this.addSql(`drop trigger if exists "stream_pending" on "events";`);
    this.addSql(`drop function if exists "events_pending_fn"();`);
    this.addSql(`drop table if exists "event_stream_pending";`);
    this.addSql(`drop table if exists "event_stream";`);
    for (const event of ['insert', 'delete']) {
      this.addSql(`drop trigger if exists "count_${event}" on "events";`);
      this.addSql(`drop function if exists "events_count_${event}_fn"();`);
    }
    this.addSql(`drop table if exists "event_counts";`);
    this.addSql(`drop index if exists "events_resource_idx";`);
    this.addSql(`drop index if exists "events_merchant_type_created_idx";`);
    this.addSql(`drop index if exists "events_merchant_created_idx";`);
    this.addSql(`create index "events_merchant_id_index" on "events" ("merchant_id");`);
    this.addSql(`alter table "events" drop column "resource_id";`);
  }
}
