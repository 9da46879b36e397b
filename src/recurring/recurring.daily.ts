// The day's Pix Automático jobs (contract: "Automatic charging"): every expiry due by the day, then the automatic
// charge of every APPROVED mandate whose next cycle's first day is the day + its leadDays. Batches of BATCH rows, one
// transaction each, a few set-based statements per batch (100k mandates in well under two minutes); idempotent and
// safe to run in any number of processes at once (rows locked FOR UPDATE SKIP LOCKED, the mandate's plan moved in the
// batch's transaction, one live charge per cycle by the partial unique index).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { newId } from '../platform/base.entity.ts';
import { pgArray, pgTx } from '../platform/sql.ts';
import { transactional } from '../platform/transaction.ts';
import { platformFee } from '../merchants/merchants.service.ts';
import { recordEvents } from '../webhooks/events.ts';
import { CHARGE_TRANSITIONS } from '../charges/charges.states.ts';
import { endOfSaoPauloDay, saoPauloDate } from '../charges/due-date.ts';
import { cycleStart, expiresOn, firstCycleFrom, plusDays, RETRY, WINDOW } from './calendar.ts';
import { MANDATE_TRANSITIONS, RECURRING_CHARGE_TRANSITIONS } from './transitions.ts';
import * as sql from './recurring.daily.sql.ts';
import { mandateView, recurringChargeView } from './daily.views.ts';

export const BATCH = 1000;

export type DailyDeps = Pick<Services, 'boss' | 'config' | 'clock'>;
export type DayResult = { created: number; expired: number };

const M = MANDATE_TRANSITIONS;
const R = RECURRING_CHARGE_TRANSITIONS;
const EXPIRE_MANDATES = sql.EXPIRE_MANDATES(M.expire);
const EXPIRE_CHARGES = sql.EXPIRE_RECURRING_CHARGES(R.expire, CHARGE_TRANSITIONS.expire);
// with the sandbox the payer's PSP schedules the charge at once (ACTIVE); a PSP is asked by a job (CREATED)
const INSERT = { sandbox: sql.INSERT_AUTOMATIC(R.activate), apipix: sql.INSERT_AUTOMATIC({ to: 'CREATED' }) };

/** What one run does on `day` (YYYY-MM-DD, São Paulo): the expiries due by it, then its automatic charges. */
export async function runDay(deps: DailyDeps, em: EntityManager, day: string): Promise<DayResult> {
  const expired = await expireAll(deps, em, day);
  let created = 0;
  for (const select of [sql.UNPLANNED_MANDATES, sql.DUE_MANDATES]) {
    for (;;) {
      const batch = await transactional(em.fork(), (tx) => chargeBatch(deps, tx, select, day));
      created += batch.created;
      if (batch.locked < BATCH) break;
    }
  }
  return { created, expired };
}

// What becomes of a mandate on `day`: the cycle it is charged for (if any), its next cycle and the day that one is due.
export type Plan = { charge: { cycle: number; dueDate: string } | null; nextCycle: number; autoChargeOn: string };

/**
 * A mandate not planned yet starts at the first cycle whose first day is on or after day + leadDays: cycles that began
 * before it was approved (or before automatic charging could reach them) are the merchant's to charge by hand. A
 * planned one is charged for its next cycle; should the worker have missed days, a cycle still inside the creation
 * window (its first day >= day + 2) is charged late rather than lost, and those past it are skipped. A cycle after the
 * end date is never charged. The next day it is looked at is always after `day`: at most one charge per day.
 */
export function planFor(m: sql.DueMandateRow, day: string): Plan {
  const { leadDays } = m.auto_charge;
  const start = m.start_date;
  const f = m.frequency;
  let k =
    m.auto_charge_on === null
      ? firstCycleFrom(start, f, plusDays(day, leadDays))
      : Math.max(m.next_cycle, firstCycleFrom(start, f, plusDays(day, WINDOW.minDays)));
  let charge: Plan['charge'] = null;
  const due = cycleStart(start, f, k);
  const inTerm = m.end_date === null || due <= m.end_date;
  if (due <= plusDays(day, leadDays) && inTerm) {
    if (amountOf(m) !== null) charge = { cycle: k, dueDate: due };
    k++;
  }
  const next = cycleStart(start, f, k);
  // past the end date: looked at again the day after it, when the mandate expires (and leaves the index)
  const on = m.end_date !== null && next > m.end_date ? plusDays(m.end_date, 1) : plusDays(next, -leadDays);
  return { charge, nextCycle: k, autoChargeOn: on > day ? on : plusDays(day, 1) };
}

// The charge's amount: the mandate's fixed amount, else autoCharge.amount (required of a variable mandate).
const amountOf = (m: sql.DueMandateRow): number | null => m.amount ?? m.auto_charge.amount ?? null;

// One batch of mandates: locked, planned, their charges inserted and their plans moved, in the caller's transaction.
async function chargeBatch(deps: DailyDeps, tx: EntityManager, select: string, day: string) {
  const { query, jobs } = pgTx(tx);
  const params = select === sql.DUE_MANDATES ? [day, BATCH] : [BATCH];
  const { rows } = await query<sql.DueMandateRow>(select, params);
  if (rows.length === 0) return { locked: 0, created: 0 };
  const plans = rows.map((m) => ({ m, plan: planFor(m, day) }));
  const now = deps.clock();
  const charges = plans.flatMap(({ m, plan }) => (plan.charge ? [newCharge(deps, m, plan.charge, now)] : []));
  let created = 0;
  if (charges.length) {
    const col = <K extends keyof NewCharge>(k: K) => pgArray(charges.map((c) => c[k]));
    const acquirer = deps.config.acquirer;
    const inserted = await query<{ id: string; txid: string }>(INSERT[acquirer], [
      ...(['id', 'chargeId', 'mandateId', 'txid', 'cycle', 'dueDate', 'amount', 'fee', 'retriesLeft'] as const).map(
        col,
      ),
      ...(['expiresAt', 'expiresIn', 'description'] as const).map(col),
      now,
      now.toISOString(),
    ]);
    created = inserted.rows.length;
    if (acquirer !== 'sandbox') void jobs; // the PSP's cobr: enqueued here once the charges module declares its queue
  }
  await query(sql.PLAN_MANDATES, [
    pgArray(plans.map(({ m }) => m.id)),
    pgArray(plans.map(({ plan }) => plan.nextCycle)),
    pgArray(plans.map(({ plan }) => plan.autoChargeOn)),
  ]);
  return { locked: rows.length, created };
}

type NewCharge = ReturnType<typeof newCharge>;

// A cycle's charge as a manual creation makes it: the merchant's fee frozen now, the hidden charge valid until the
// end of the day the recurring charge expires (São Paulo), retries as the mandate's policy allows.
function newCharge(deps: DailyDeps, m: sql.DueMandateRow, c: { cycle: number; dueDate: string }, now: Date) {
  const amount = amountOf(m)!;
  const fee = platformFee(amount, {
    bps: m.fee_bps ?? deps.config.platformFeeBps,
    fixed: m.fee_fixed ?? deps.config.platformFeeFixed,
  });
  const chargeId = newId();
  const expiresAt = new Date(endOfSaoPauloDay(expiresOn(c.dueDate)).getTime() + 999);
  return {
    id: newId(),
    chargeId,
    mandateId: m.id,
    txid: chargeId.replaceAll('-', ''),
    cycle: c.cycle,
    dueDate: c.dueDate,
    amount,
    fee,
    retriesLeft: m.retry_policy === 'THREE_IN_SEVEN_DAYS' ? 3 : 0,
    expiresAt: expiresAt.toISOString(),
    expiresIn: Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000)),
    description: m.object,
  };
}

// Every expiry due by `day`, batch by batch: mandates (mandate.expired), then recurring charges unpaid by their
// dueDate + 7 (recurring_charge.expired), each batch with its events in its transaction.
async function expireAll(deps: DailyDeps, em: EntityManager, day: string): Promise<number> {
  const now = deps.clock();
  // "by that day": now, for today; the end of the day, for another (the sandbox's --date)
  const cutoff = day === saoPauloDate(now) ? now : endOfSaoPauloDay(day);
  const at = now.toISOString();
  const { publicBaseUrl } = deps.config;
  let expired = 0;
  for (;;) {
    const n = await transactional(em.fork(), async (tx) => {
      const { rows } = await pgTx(tx).query<sql.MandateRow>(EXPIRE_MANDATES, [cutoff, day, BATCH, now, at]);
      const events = rows.map((r) => ({
        merchantId: r.merchant_id,
        type: M.expire.event,
        data: mandateView(r, publicBaseUrl),
      }));
      await recordEvents(tx, deps.boss, events);
      return rows.length;
    });
    expired += n;
    if (n === 0) break;
  }
  const lastDue = plusDays(day, -(RETRY.lastDay + 1)); // expiresOn(lastDue) === day
  for (;;) {
    const n = await transactional(em.fork(), async (tx) => {
      const { rows } = await pgTx(tx).query<sql.RecurringChargeRow>(EXPIRE_CHARGES, [lastDue, BATCH, now, at]);
      const events = rows.map((r) => ({
        merchantId: r.merchant_id,
        type: R.expire.event,
        data: recurringChargeView(r),
      }));
      await recordEvents(tx, deps.boss, events);
      return rows.length;
    });
    expired += n;
    if (n === 0) break;
  }
  return expired;
}
