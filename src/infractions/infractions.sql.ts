// Every statement of the infractions module (run through MikroORM: `?` parameters) and its row type: the infractions
// table, the charge an infraction is opened on, and a refund in progress on it (the refunds table, read for one check).
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
export const REFUND_IN_PROGRESS = `
  select 1
    from refunds
   where charge_id = ? and status = 'PROCESSING'`;

// One open infraction per charge and one per PSP id: a repeat inserts nothing.
export const INSERT = `
  insert into infractions (id, created_at, updated_at, merchant_id, charge_id, amount, status, reason, defense,
                           deadline_at, blocked, shortfall, acquirer_id)
  values (?, now(), now(), ?, ?, ?, 'OPEN', ?, null, ?, ?, ?, ?)
      on conflict do nothing
  returning *`;

export const BY_ID = `
  select *
    from infractions
   where id = ?`;
export const BY_ACQUIRER_ID = `
  select *
    from infractions
   where acquirer_id = ?`;
export const FOR_MERCHANT = `
  select *
    from infractions
   where id = ? and merchant_id = ?`;

// A merchant's available balance, its row locked until the commit (as the ledger's own postings lock it).
export const LOCK_BALANCE = `
  select balance
    from ledger_accounts
   where code = ?
     for no key update`;

// A guarded status change (a row of INFRACTION_TRANSITIONS): no row when the infraction is no longer in one of `from`
// (a race lost, a repeat).
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
export const MERCHANTS_OWING = `
  select distinct merchant_id
    from infractions
   where merchant_id = any(?::uuid[]) and status in ('OPEN', 'UNDER_REVIEW') and shortfall > 0`;
