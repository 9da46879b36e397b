// The statement's reads (declared `$n` statements: src/platform/sql.ts), on statement_entries (written by ledger.sql.ts POST).
// A merchant's lines are numbered 1..n with no gap and created_at never decreases along n, so a range of time is a
// range of n found by two index lookups, its total is hi - lo, and any page is an index range: no count, no OFFSET.
import { statement } from '../platform/sql.ts';

export type StatementRow = {
  id: string;
  n: string;
  type: string;
  amount: string;
  blocked_amount: string;
  balance_after: string;
  charge_id: string | null;
  withdrawal_id: string | null;
  refund_id: string | null;
  infraction_id: string | null;
  recurring_charge_id: string | null;
  created_at: Date | string;
};

const COLUMNS = `s.id, s.n, s.type, s.amount, s.blocked_amount, s.balance_after, s.charge_id, s.withdrawal_id, s.refund_id, s.infraction_id, s.created_at`;

/**
 * The range of n of the lines written in [from, until): hi, the last line before `until`, and lo, the last before
 * `from` (0: none), each the first entry of a backward scan of statement_entries_merchant_created_idx.
 * Parameters: merchant, until ('infinity': no end), merchant, from ('-infinity': no start).
 */
export const BOUNDS = statement(
  'statement.bounds',
  `
  select coalesce((select n from statement_entries where merchant_id = $1 and created_at < $2 order by created_at desc, n desc limit 1), 0) as hi,
         coalesce((select n from statement_entries where merchant_id = $3 and created_at < $4 order by created_at desc, n desc limit 1), 0) as lo`,
);

/**
 * Lines of a merchant with lo < n <= hi, newest first, at most `limit`, from the (merchant_id, n) unique index, each
 * with the recurring charge whose money its charge is (a RECURRING charges row: src/recurring), by its unique index.
 * Parameters: merchant, hi, lo, limit.
 */
export const LINES = statement(
  'statement.lines',
  `
  select ${COLUMNS}, rc.id as recurring_charge_id
    from statement_entries s
    left join recurring_charges rc on rc.charge_id = s.charge_id
   where s.merchant_id = $1 and s.n <= $2 and s.n > $3
   order by s.n desc
   limit $4`,
);

// ledger:verify: each merchant's lines against its head (the available account) and its balances.
export const STATEMENT_DRIFT = statement(
  'statement.drift',
  `
  select h.merchant_id, h.statement_count, h.statement_total, h.balance + coalesce(b.balance, 0) as balances,
         coalesce(s.n, 0) as lines, coalesce(s.sum, 0) as sum, coalesce(s.last, 0) as last, count(*) over () as total
    from ledger_accounts h
    left join ledger_accounts b on b.code = 'merchant:' || h.merchant_id || ':blocked'
    left join lateral (select count(*) as n, sum(amount) as sum, max(n) as top,
                              (select balance_after from statement_entries x where x.merchant_id = h.merchant_id order by x.n desc limit 1) as last
                         from statement_entries e
                        where e.merchant_id = h.merchant_id) s on true
   where h.merchant_id is not null and h.code = 'merchant:' || h.merchant_id || ':available'
     and (h.statement_count <> coalesce(s.n, 0) or coalesce(s.top, 0) <> coalesce(s.n, 0)
          or h.statement_total <> h.balance + coalesce(b.balance, 0)
          or coalesce(s.sum, 0) <> h.statement_total or coalesce(s.last, 0) <> h.statement_total)
   order by h.merchant_id
   limit $1`,
);

// ledger:verify: lines whose balanceAfter is not the previous line's plus their amount.
export const STATEMENT_BROKEN = statement(
  'statement.broken',
  `
  select x.merchant_id, x.n, count(*) over () as total
    from (select merchant_id, n, amount, balance_after,
                 lag(balance_after, 1, 0::bigint) over (partition by merchant_id order by n) as before
            from statement_entries) x
   where x.balance_after <> x.before + x.amount
   order by x.merchant_id, x.n
   limit $1`,
);
