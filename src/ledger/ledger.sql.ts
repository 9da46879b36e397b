// Every statement on the ledger tables (run through MikroORM: `?` parameters).

// New accounts, without locking existing ones (do nothing on conflict). Parameters: arrays of id, code, merchant_id.
export const CREATE_ACCOUNTS = `
  insert into ledger_accounts (id, created_at, updated_at, code, merchant_id, balance)
  select id, now(), now(), code, merchant_id, 0
    from unnest(?::uuid[], ?::text[], ?::uuid[]) as a(id, code, merchant_id)
      on conflict (code) do nothing
  returning code`;

export const ACCOUNT_IDS = `
  select id, code
    from ledger_accounts
   where code = any(?::text[])`;

/**
 * Several balanced transactions in one statement (see postMany): the transaction rows (those already posted are
 * skipped), their entries, and each touched account's balance moved by its net change, the accounts locked in code
 * order with NO KEY UPDATE; a merchant account's guard refuses to go below zero (moved < moves).
 * Parameters: arrays of transaction id, kind, reference_id; then of entry id, transaction_id, account_id, amount.
 */
export const POST = `
  with t as (
    insert into ledger_transactions (id, created_at, updated_at, kind, reference_id)
    select id, now(), now(), kind, reference_id
      from unnest(?::uuid[], ?::text[], ?::uuid[]) as t(id, kind, reference_id)
        on conflict (kind, reference_id) do nothing
    returning id, reference_id
  ),
  e as (
    insert into ledger_entries (id, created_at, updated_at, transaction_id, account_id, amount)
    select e.id, now(), now(), e.transaction_id, e.account_id, e.amount
      from unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::bigint[]) as e(id, transaction_id, account_id, amount)
      join t on t.id = e.transaction_id
    returning account_id, amount
  ),
  net as (
    select account_id, sum(amount) as amount
      from e
     group by account_id
    having sum(amount) <> 0
  ),
  locked as materialized (
    select a.id, a.merchant_id, a.balance
      from ledger_accounts a
      join net on net.account_id = a.id
     order by a.code
       for no key update of a
  ),
  moved as (
    update ledger_accounts a set balance = locked.balance + net.amount, updated_at = now()
      from net
      join locked on locked.id = net.account_id
     where a.id = net.account_id and (locked.merchant_id is null or locked.balance + net.amount >= 0)
    returning a.id
  )
  select (select array_agg(reference_id::text) from t) as posted,
         (select count(*) from net)::int as moves,
         (select count(*) from moved)::int as moved`;

// A merchant's two accounts (parameters: the available and blocked account codes).
export const BALANCES = `
  select code, balance
    from ledger_accounts
   where code in (?, ?)`;

// ledger:verify (problems listed per kind, `total` counts them all).
export const COUNT = (table: 'ledger_transactions' | 'ledger_accounts' | 'ledger_entries') => `
  select count(*) as n
    from ${table}`;

export const UNBALANCED = (shown: number) => `
  select t.id, t.kind, t.reference_id, s.sum, count(*) over () as total
    from (select transaction_id, sum(amount) as sum
            from ledger_entries
           group by transaction_id
          having sum(amount) <> 0) s
    join ledger_transactions t on t.id = s.transaction_id
   order by t.created_at
   limit ${shown}`;

export const DRIFTED = (shown: number) => `
  select a.code, a.balance, coalesce(s.sum, 0) as sum, count(*) over () as total
    from ledger_accounts a
    left join (select account_id, sum(amount) as sum
                 from ledger_entries
                group by account_id) s on s.account_id = a.id
   where a.balance <> coalesce(s.sum, 0)
   order by a.code
   limit ${shown}`;

export const NEGATIVE = (shown: number) => `
  select code, balance, count(*) over () as total
    from ledger_accounts
   where (merchant_id is not null or code like 'merchant:%') and balance < 0
   order by code
   limit ${shown}`;

export const BOOKS_SUM = `
  select coalesce(sum(balance), 0) as sum
    from ledger_accounts`;
