import { Migration } from '@mikro-orm/migrations';

// The merchants' statement (extrato, statement.entity.ts): its lines, and its head on each merchant's available
// account. Lines for what was posted before are made here from the ledger, in posting order (a transaction's time,
// then its id), with the same rules as ledger.sql.ts POST: one line per transaction and merchant, the change of its
// available + blocked. A split's charge is found by its reference (charges.money.ts splitReference, computed here the
// same way); an `infraction.cover` posted before kept no link to its infraction (its line shows none).
const TYPES = `case t.kind
  when 'charge.payment' then 'CHARGE_PAID'
  when 'charge.split' then case when sum(e.amount) < 0 then 'SPLIT_PAID' else 'SPLIT_RECEIVED' end
  when 'refund.hold' then 'REFUND' when 'refund.release' then 'REFUND' when 'refund.complete' then 'REFUND'
  when 'withdrawal' then 'WITHDRAWAL'
  when 'withdrawal.reversal' then 'WITHDRAWAL_REVERSED' when 'withdrawal.return' then 'WITHDRAWAL_REVERSED'
  when 'infraction.block' then 'INFRACTION_BLOCK' when 'infraction.cover' then 'INFRACTION_BLOCK'
  when 'infraction.release' then 'INFRACTION_RELEASE' when 'infraction.refund' then 'INFRACTION_REFUND' end`;

const SPLIT_REFS = `select c.id as charge_id,
    (substr(x.h, 1, 12) || '8' || substr(x.h, 14, 3) || to_hex((('x' || substr(x.h, 17, 1))::bit(4)::int & 3) | 8)
      || substr(x.h, 18, 15))::uuid as reference_id
  from charges c
  cross join lateral jsonb_array_elements(c.splits) with ordinality s(v, i)
  cross join lateral (select encode(sha256(convert_to(c.id::text || ':split:' || (s.i - 1), 'UTF8')), 'hex') as h) x
 where c.splits is not null`;

export class Migration20261129090000_statement extends Migration {
  override name = 'Migration20261129090000_statement';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "ledger_accounts" add column "statement_count" bigint not null default 0, add column "statement_total" bigint not null default 0, add column "statement_at" timestamptz null;`,
    );
    this.addSql(
      `create table "statement_entries" ("id" uuid not null, "merchant_id" uuid not null, "n" bigint not null, "type" text check ("type" in ('CHARGE_PAID', 'SPLIT_RECEIVED', 'SPLIT_PAID', 'REFUND', 'WITHDRAWAL', 'WITHDRAWAL_REVERSED', 'INFRACTION_BLOCK', 'INFRACTION_RELEASE', 'INFRACTION_REFUND')) not null, "amount" bigint not null, "blocked_amount" bigint not null, "balance_after" bigint not null, "transaction_id" uuid not null, "charge_id" uuid null, "withdrawal_id" uuid null, "refund_id" uuid null, "infraction_id" uuid null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "statement_entries" add constraint "statement_entries_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id");`,
    );
    this.addSql(
      `alter table "statement_entries" add constraint "statement_entries_merchant_n_unique" unique ("merchant_id", "n");`,
    );
    this.addSql(
      `create index "statement_entries_merchant_created_idx" on "statement_entries" ("merchant_id", "created_at", "n");`,
    );
    // the lines of what was posted before
    this.addSql(
      `insert into "statement_entries" ("id", "merchant_id", "n", "type", "amount", "blocked_amount", "balance_after", "transaction_id", "charge_id", "withdrawal_id", "refund_id", "infraction_id", "created_at")
       select gen_random_uuid(), g.merchant_id,
              row_number() over w, g.type, g.amount, g.blocked, sum(g.amount) over w, g.transaction_id,
              case when g.kind = 'charge.payment' then g.reference_id
                   when g.kind = 'charge.split' then (select sr.charge_id from (${SPLIT_REFS}) sr where sr.reference_id = g.reference_id)
                   when g.kind like 'refund.%' then (select r.charge_id from refunds r where r.id = g.reference_id)
                   when g.kind like 'infraction.%' then (select i.charge_id from infractions i where i.id = g.reference_id) end,
              case when g.kind like 'withdrawal%' then g.reference_id end,
              case when g.kind like 'refund.%' then g.reference_id end,
              case when g.kind like 'infraction.%' and g.kind <> 'infraction.cover' then g.reference_id end,
              g.created_at
         from (select t.id as transaction_id, t.kind, t.reference_id, t.created_at, a.merchant_id,
                      sum(e.amount) as amount, coalesce(sum(e.amount) filter (where a.code like '%:blocked'), 0) as blocked,
                      ${TYPES} as type
                 from ledger_entries e
                 join ledger_transactions t on t.id = e.transaction_id
                 join ledger_accounts a on a.id = e.account_id
                where a.merchant_id is not null and e.amount <> 0
                group by t.id, t.kind, t.reference_id, t.created_at, a.merchant_id) g
       window w as (partition by g.merchant_id order by g.created_at, g.transaction_id);`,
    );
    this.addSql(
      `update "ledger_accounts" a set "statement_count" = s."n", "statement_total" = s."total", "statement_at" = s."at"
         from (select merchant_id, max(n) as n, sum(amount) as total, max(created_at) as at
                 from statement_entries group by merchant_id) s
        where a."code" = 'merchant:' || s.merchant_id || ':available';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "statement_entries" cascade;`);
    this.addSql(
      `alter table "ledger_accounts" drop column "statement_count", drop column "statement_total", drop column "statement_at";`,
    );
  }
}
