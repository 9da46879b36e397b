// Every statement of the infractions module (declared `$n` statements, run through ormSql) and its row type: the
// infractions table, the charge an infraction is opened on, and what its refunds took or are taking (the refunds
// table, read).
import { from, statement, to, type Transition } from '../platform/sql.ts';
import type { InfractionStatus } from './infraction.entity.ts';

export type InfractionRow = {
  id: string;
  created_at: Date;
  updated_at: Date;
  merchant_id: string;
  charge_id: string;
  amount: number;
  status: InfractionStatus;
  reason: string;
  defense: string | null;
  deadline_at: Date;
  blocked: number;
  shortfall: number;
  acquirer_id: string | null;
};

// A charge as an infraction disputes it: `amount` is what the payer paid (a due-date charge: its paid amount).
export const CHARGE = statement(
  'infractions.charge',
  `
  select id, merchant_id, coalesce(paid_amount, amount) as amount, status, end_to_end_id
    from charges
   where id = $1
     for update`,
);
export const CHARGE_BY_E2E = statement(
  'infractions.charge_by_e2e',
  `
  select id
    from charges
   where end_to_end_id = $1`,
);
// What of a charge its refunds took back (COMPLETED) or are taking back (PROCESSING): an infraction disputes only the
// rest. Parameter: charge id.
export const REFUNDS_OF_CHARGE = statement(
  'infractions.refunds_of_charge',
  `
  select coalesce(sum(amount) filter (where status = 'COMPLETED'), 0) as completed,
         coalesce(sum(amount) filter (where status = 'PROCESSING'), 0) as processing
    from refunds
   where charge_id = $1`,
);
export type RefundsOfCharge = { completed: string; processing: string };

// The charge of an infraction, locked: a decision takes the charge first, as every refund and infraction path does.
// `amount` is what the payer paid (a due-date charge: its paid amount).
export const LOCK_CHARGE_OF = statement(
  'infractions.lock_charge_of',
  `
  select c.id, coalesce(c.paid_amount, c.amount) as amount
    from charges c
   where c.id = (
           select charge_id
             from infractions
            where id = $1
         )
     for update of c`,
);

// One open infraction per charge and one per PSP id: a repeat inserts nothing.
export const INSERT = statement(
  'infractions.insert',
  `
  insert into infractions (id, created_at, updated_at, merchant_id, charge_id, amount, status, reason, defense,
                           deadline_at, blocked, shortfall, acquirer_id)
  values ($1, now(), now(), $2, $3, $4, 'OPEN', $5, null, $6, $7, $8, $9)
      on conflict do nothing
  returning *`,
);

export const BY_ACQUIRER_ID = statement(
  'infractions.by_acquirer_id',
  `
  select *
    from infractions
   where acquirer_id = $1`,
);
export const FOR_MERCHANT = statement(
  'infractions.for_merchant',
  `
  select *
    from infractions
   where id = $1 and merchant_id = $2`,
);

// Ledger accounts locked until the commit (as the ledger's own postings lock them), in code order like every lock of
// the ledger, with their balances: the accounts a posting that follows will move. Parameter: an array of codes.
export const LOCK_ACCOUNTS = statement(
  'infractions.lock_accounts',
  `
  select code, balance
    from ledger_accounts
   where code = any($1::text[])
   order by code
     for no key update`,
);

// An accepted infraction's amount, when the acquirer's decision gives the payer more than it opened with (parameters:
// amount, id).
export const SET_AMOUNT = statement(
  'infractions.set_amount',
  `
  update infractions set amount = $1, updated_at = now()
   where id = $2
  returning *`,
);

// A guarded status change, written from its row of INFRACTION_TRANSITIONS (infractions.states.ts): no row when the
// infraction is no longer in one of `from` (a race lost, a repeat). Parameter: id. `name`: the transition's.
export const TRANSITION = (name: string, t: Transition<InfractionStatus>) =>
  statement(
    `infractions.${name}`,
    `
  update infractions set status = ${to(t)}, updated_at = now()
   where id = $1 and status in (${from(t)})
  returning *`,
  );

// Parameters: defense, id, merchant id.
export const DEFEND = (t: Transition<InfractionStatus>) =>
  statement(
    'infractions.defend',
    `
  update infractions set status = ${to(t)}, defense = $1, updated_at = now()
   where id = $2 and merchant_id = $3 and status in (${from(t)}) and deadline_at > now()
  returning *`,
  );

// Open infractions still owed blocked money, oldest first, locked (cover step).
export const OWED = statement(
  'infractions.owed',
  `
  select *
    from infractions
   where merchant_id = $1 and status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0
   order by created_at, id
     for update`,
);
export const MERCHANTS_OWED = statement(
  'infractions.merchants_owed',
  `
  select distinct merchant_id
    from infractions
   where status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0`,
);
export const COVER = statement(
  'infractions.cover',
  `
  update infractions set blocked = blocked + $1, shortfall = shortfall - $1, updated_at = now()
   where id = $2`,
);

export const PAGE = statement(
  'infractions.page',
  `
  select *, count(*) over () as total
    from infractions
   where merchant_id = $1
   order by created_at desc, id desc
   limit $2 offset $3`,
);
// infractions:list (operators). Parameters: open only (OPEN or UNDER_REVIEW), overdue only (OPEN past its deadline).
export const OPS_LIST = statement(
  'infractions.ops_list',
  `
  select i.*, m.name as merchant_name
    from infractions i
    join merchants m on m.id = i.merchant_id
   where (not $1::boolean or i.status in ('OPEN', 'UNDER_REVIEW'))
     and (not $2::boolean or (i.status = 'OPEN' and i.deadline_at < now()))
   order by i.deadline_at, i.id
   limit 1000`,
);
export const COUNT = statement(
  'infractions.count',
  `
  select count(*) as n
    from infractions
   where merchant_id = $1`,
);

// MED's holds, asked by the money that leaves a merchant (infractions.holds.ts): an open infraction on a charge; a
// merchant's available balance and what its open infractions are still owed; which of these merchants owe.
export const OPEN_ON_CHARGE = statement(
  'infractions.open_on_charge',
  `
  select 1
    from infractions
   where charge_id = $1 and status in ('OPEN', 'UNDER_REVIEW')`,
);
export const AVAILABLE_AND_OWED = statement(
  'infractions.available_and_owed',
  `
  select (select balance from ledger_accounts where code = $1) as balance,
         (select coalesce(sum(shortfall), 0)
            from infractions
           where merchant_id = $2 and status in ('OPEN', 'UNDER_REVIEW')) as owed`,
);
export const MERCHANTS_OWING = statement(
  'infractions.merchants_owing',
  `
  select distinct merchant_id
    from infractions
   where merchant_id = any($1::uuid[]) and status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0`,
);
