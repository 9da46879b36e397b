// Every statement of the infractions module (run through MikroORM: `?` parameters, but those marked `$n`, sent through
// pgTx and named) and its row type: the infractions table, the charge an infraction is opened on, and what its refunds
// took or are taking (the refunds table, read).
import { statuses, type Transition } from '../platform/sql.ts';
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
export const CHARGE = `
  select id, merchant_id, coalesce(paid_amount, amount) as amount, status, end_to_end_id
    from charges
   where id = ?
     for update`;
export const CHARGE_BY_E2E = `
  select id
    from charges
   where end_to_end_id = ?`;
// What of a charge its refunds took back (COMPLETED) or are taking back (PROCESSING): an infraction disputes only the
// rest. Parameter: charge id.
export const REFUNDS_OF_CHARGE = `
  select coalesce(sum(amount) filter (where status = 'COMPLETED'), 0) as completed,
         coalesce(sum(amount) filter (where status = 'PROCESSING'), 0) as processing
    from refunds
   where charge_id = ?`;
export type RefundsOfCharge = { completed: string; processing: string };

// The charge of an infraction, locked: a decision takes the charge first, as every refund and infraction path does.
// `amount` is what the payer paid (a due-date charge: its paid amount).
export const LOCK_CHARGE_OF = `
  select c.id, coalesce(c.paid_amount, c.amount) as amount
    from charges c
   where c.id = (
           select charge_id
             from infractions
            where id = ?
         )
     for update of c`;

// One open infraction per charge and one per PSP id: a repeat inserts nothing.
export const INSERT = `
  insert into infractions (id, created_at, updated_at, merchant_id, charge_id, amount, status, reason, defense,
                           deadline_at, blocked, shortfall, acquirer_id)
  values (?, now(), now(), ?, ?, ?, 'OPEN', ?, null, ?, ?, ?, ?)
      on conflict do nothing
  returning *`;

export const BY_ACQUIRER_ID = `
  select *
    from infractions
   where acquirer_id = ?`;
export const FOR_MERCHANT = `
  select *
    from infractions
   where id = ? and merchant_id = ?`;

// Ledger accounts locked until the commit (as the ledger's own postings lock them), in code order like every lock of
// the ledger, with their balances: the accounts a posting that follows will move. Parameter: an array of codes.
export const LOCK_ACCOUNTS = `
  select code, balance
    from ledger_accounts
   where code = any(?::text[])
   order by code
     for no key update`;

// A guarded status change (a row of INFRACTION_TRANSITIONS): no row when the infraction is no longer in one of `from`
// (a race lost, a repeat).
// An accepted infraction's amount, when the acquirer's decision gives the payer more than it opened with (parameters:
// amount, id).
export const SET_AMOUNT = `
  update infractions set amount = ?, updated_at = now()
   where id = ?
  returning *`;

export const TRANSITION = (t: Transition<InfractionStatus>) => `
  update infractions set status = ${statuses([t.to])}, updated_at = now()
   where id = ? and status in (${statuses(t.from)})
  returning *`;

export const DEFEND = (t: Transition<InfractionStatus>) => `
  update infractions set status = ${statuses([t.to])}, defense = ?, updated_at = now()
   where id = ? and merchant_id = ? and status in (${statuses(t.from)}) and deadline_at > now()
  returning *`;

// Open infractions still owed blocked money, oldest first, locked (cover step).
export const OWED = `
  select *
    from infractions
   where merchant_id = ? and status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0
   order by created_at, id
     for update`;
export const MERCHANTS_OWED = `
  select distinct merchant_id
    from infractions
   where status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0`;
export const COVER = `
  update infractions set blocked = blocked + ?, shortfall = shortfall - ?, updated_at = now()
   where id = ?`;

export const PAGE = `
  select *, count(*) over () as total
    from infractions
   where merchant_id = ?
   order by created_at desc, id desc
   limit ? offset ?`;
export const OPS_LIST = (open: boolean, overdue: boolean) => `
  select i.*, m.name as merchant_name
    from infractions i
    join merchants m on m.id = i.merchant_id
   where true
     ${open || overdue ? `and i.status in ('OPEN', 'UNDER_REVIEW')` : ''}
     ${overdue ? `and i.status = 'OPEN' and i.deadline_at < now()` : ''}
   order by i.deadline_at, i.id
   limit 1000`;
export const COUNT = `
  select count(*) as n
    from infractions
   where merchant_id = ?`;

// MED's holds, asked by the money that leaves a merchant (infractions.holds.ts): an open infraction on a charge; a
// merchant's available balance and what its open infractions are still owed; which of these merchants owe.
export const OPEN_ON_CHARGE = `
  select 1
    from infractions
   where charge_id = ? and status in ('OPEN', 'UNDER_REVIEW')`;
export const AVAILABLE_AND_OWED = `
  select (select balance from ledger_accounts where code = ?) as balance,
         (select coalesce(sum(shortfall), 0)
            from infractions
           where merchant_id = ? and status in ('OPEN', 'UNDER_REVIEW')) as owed`;
// `$1`: sent through pgTx (named, prepared.ts).
export const MERCHANTS_OWING = `
  select distinct merchant_id
    from infractions
   where merchant_id = any($1::uuid[]) and status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0`;
