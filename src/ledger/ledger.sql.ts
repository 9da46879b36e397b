// Every statement on the ledger tables, declared (`$n`, named: src/platform/sql.ts) and the rows they return.
import { statement } from '../platform/sql.ts';

// New accounts, without locking existing ones (do nothing on conflict). Parameters: arrays of id, code, merchant_id.
export const CREATE_ACCOUNTS = statement(
  'ledger.create_accounts',
  `
  insert into ledger_accounts (id, created_at, updated_at, code, merchant_id, balance)
  select id, now(), now(), code, merchant_id, 0
    from unnest($1::uuid[], $2::text[], $3::uuid[]) as a(id, code, merchant_id)
      on conflict (code) do nothing
  returning code`,
);

export const ACCOUNT_IDS = statement(
  'ledger.account_ids',
  `
  select id, code
    from ledger_accounts
   where code = any($1::text[])`,
);

/**
 * Several balanced transactions in one statement (see postMany): the transaction rows (those already posted are
 * skipped), their entries, their statement lines (statement.entity.ts), and each touched account's balance moved by
 * its net change. The accounts are locked in code order with NO KEY UPDATE: those whose balance moves, and the
 * available account of every merchant with a statement line (it heads the merchant's statement: the lines are
 * numbered and their balanceAfter computed from it, so two postings to one merchant are numbered in the order they
 * lock it). A merchant account's guard refuses to go below zero (moved < moves).
 * Parameters: arrays of transaction id, kind, reference_id; then of entry id, transaction_id, account_id, amount; then
 * of line id, transaction_id, head (available account) id, merchant_id, type, amount, blocked amount, charge_id,
 * withdrawal_id, refund_id, infraction_id (lines of one merchant in posting order).
 */
export const POST = statement(
  'ledger.post',
  `
  with t as (
    insert into ledger_transactions (id, created_at, updated_at, kind, reference_id)
    select id, now(), now(), kind, reference_id
      from unnest($1::uuid[], $2::text[], $3::uuid[]) as t(id, kind, reference_id)
        on conflict (kind, reference_id) do nothing
    returning id, reference_id
  ),
  e as (
    insert into ledger_entries (id, created_at, updated_at, transaction_id, account_id, amount)
    select e.id, now(), now(), e.transaction_id, e.account_id, e.amount
      from unnest($4::uuid[], $5::uuid[], $6::uuid[], $7::bigint[]) as e(id, transaction_id, account_id, amount)
      join t on t.id = e.transaction_id
    returning account_id, amount
  ),
  lines as (
    select l.*
      from unnest($8::uuid[], $9::uuid[], $10::uuid[], $11::uuid[], $12::text[], $13::bigint[], $14::bigint[], $15::uuid[], $16::uuid[], $17::uuid[], $18::uuid[])
           with ordinality as l(id, transaction_id, head_id, merchant_id, type, amount, blocked, charge_id, withdrawal_id, refund_id, infraction_id, ord)
      join t on t.id = l.transaction_id
  ),
  net as (
    select account_id, sum(amount) as amount
      from e
     group by account_id
    having sum(amount) <> 0
  ),
  touched as (
    select account_id as id
      from net
     union select head_id
      from lines
  ),
  locked as materialized (
    select a.id, a.merchant_id, a.balance, a.statement_count, a.statement_total, a.statement_at
      from ledger_accounts a
      join touched on touched.id = a.id
     order by a.code
       for no key update of a
  ),
  numbered as (
    select l.*,
           k.statement_count + row_number() over w as n,
           k.statement_total + sum(l.amount) over w as balance_after,
           greatest(now(), k.statement_at) as at
      from lines l
      join locked k on k.id = l.head_id
    window w as (partition by l.head_id order by l.ord)
  ),
  written as (
    insert into statement_entries (id, merchant_id, n, type, amount, blocked_amount, balance_after, transaction_id, charge_id, withdrawal_id, refund_id, infraction_id, created_at)
    select id, merchant_id, n, type, amount, blocked, balance_after, transaction_id, charge_id, withdrawal_id, refund_id, infraction_id, at
      from numbered
    returning 1
  ),
  heads as (
    select head_id, max(n) as n, sum(amount) as amount, max(at) as at
      from numbered
     group by head_id
  ),
  moved as (
    update ledger_accounts a
       set balance = k.balance + coalesce(net.amount, 0),
           statement_count = coalesce(h.n, k.statement_count),
           statement_total = k.statement_total + coalesce(h.amount, 0),
           statement_at = coalesce(h.at, k.statement_at),
           updated_at = now()
      from locked k
      left join net on net.account_id = k.id
      left join heads h on h.head_id = k.id
     where a.id = k.id and (k.merchant_id is null or k.balance + coalesce(net.amount, 0) >= 0)
    returning a.id
  )
  select (select array_agg(reference_id::text) from t) as posted,
         (select count(*) from locked)::int as moves,
         (select count(*) from moved)::int as moved,
         (select count(*) from written)::int as written`,
);

// A merchant's two accounts (parameters: the available and blocked account codes).
export const BALANCES = statement(
  'ledger.balances',
  `
  select code, balance
    from ledger_accounts
   where code in ($1, $2)`,
);

// ledger:verify (problems listed per kind, `total` counts them all; `$1` how many are listed).
export const COUNT = {
  ledger_transactions: statement(
    'ledger.count_transactions',
    `
  select count(*) as n
    from ledger_transactions`,
  ),
  ledger_accounts: statement(
    'ledger.count_accounts',
    `
  select count(*) as n
    from ledger_accounts`,
  ),
  ledger_entries: statement(
    'ledger.count_entries',
    `
  select count(*) as n
    from ledger_entries`,
  ),
};

export const UNBALANCED = statement(
  'ledger.unbalanced',
  `
  select t.id, t.kind, t.reference_id, s.sum, count(*) over () as total
    from (select transaction_id, sum(amount) as sum
            from ledger_entries
           group by transaction_id
          having sum(amount) <> 0) s
    join ledger_transactions t on t.id = s.transaction_id
   order by t.created_at
   limit $1`,
);

export const DRIFTED = statement(
  'ledger.drifted',
  `
  select a.code, a.balance, coalesce(s.sum, 0) as sum, count(*) over () as total
    from ledger_accounts a
    left join (select account_id, sum(amount) as sum
                 from ledger_entries
                group by account_id) s on s.account_id = a.id
   where a.balance <> coalesce(s.sum, 0)
   order by a.code
   limit $1`,
);

export const NEGATIVE = statement(
  'ledger.negative',
  `
  select code, balance, count(*) over () as total
    from ledger_accounts
   where (merchant_id is not null or code like 'merchant:%') and balance < 0
   order by code
   limit $1`,
);

export const BOOKS_SUM = statement(
  'ledger.books_sum',
  `
  select coalesce(sum(balance), 0) as sum
    from ledger_accounts`,
);
