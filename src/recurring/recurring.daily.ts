// The day's Pix Automático jobs (contract: "Automatic charging"): every expiry due by the day, then the automatic
// charge of every APPROVED mandate whose next cycle's first day is the day + its leadDays. Batches of BATCH rows, one
// transaction each, a few set-based statements per batch (100k mandates in well under two minutes); idempotent and
// safe to run in any number of processes at once (rows locked FOR UPDATE SKIP LOCKED, the mandate's plan moved in the
// batch's transaction, one live charge per cycle by the partial unique index).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { newId } from '../platform/base.entity.ts';
import { ormSql, type Statement } from '../platform/sql.ts';
import { enqueueMany, QUEUES } from '../platform/queue.ts';
import { transactional } from '../platform/transaction.ts';
import { effectiveFee, platformFee } from '../money/money.ts';
import { recordEvents } from '../webhooks/outbox.ts';
import { endOfSaoPauloDay, saoPauloDate } from '../charges/due-date.ts';
import { cycleStart, expiresOn, firstCycleFrom, plusDays, RETRY, WINDOW } from './calendar.ts';
import { MANDATE_TRANSITIONS, RECURRING_CHARGE_TRANSITIONS } from './transitions.ts';
import * as sql from './recurring.daily.sql.ts';
import { INSERT_RECURRING_CHARGES } from './recurring-charges.sql.ts';
import { recurringChargeView, type RecurringChargeRow } from './recurring-charges.view.ts';
import type { MandateRow } from './mandates.sql.ts';
import { mandateView } from './mandates.view.ts';

export const BATCH = 1000;
const DEFAULT_LEAD_DAYS = 4; // contract: autoCharge.leadDays, 2..10, default 4

export type DailyDeps = Pick<Services, 'boss' | 'config' | 'clock'>;
export type DayResult = { created: number; expired: number };

const M = MANDATE_TRANSITIONS;
const R = RECURRING_CHARGE_TRANSITIONS;

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
  const leadDays = m.auto_charge.leadDays ?? DEFAULT_LEAD_DAYS;
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

// One batch of mandates: locked, planned, their charges inserted (with their PSP jobs) and their plans moved, in the
// caller's transaction.
async function chargeBatch(deps: DailyDeps, tx: EntityManager, select: Statement, day: string) {
  const { query, run } = ormSql(tx);
  const params = select === sql.DUE_MANDATES ? [day, BATCH] : [BATCH];
  const rows = await query<sql.DueMandateRow>(select, params);
  if (rows.length === 0) return { locked: 0, created: 0 };
  const plans = rows.map((m) => ({ m, plan: planFor(m, day) }));
  const now = deps.clock();
  const charges = plans.flatMap(({ m, plan }) => (plan.charge ? [newCharge(deps, m, plan.charge, now)] : []));
  let created = 0;
  if (charges.length) {
    const col = <K extends Exclude<keyof NewCharge, 'request'>>(k: K) => charges.map((c) => c[k]);
    const inserted = await query<{ id: string }>(
      INSERT_RECURRING_CHARGES,
      (
        [
          ...['id', 'chargeId', 'merchantId', 'mandateId', 'txid', 'cycle', 'dueDate', 'amount', 'description'],
          ...['status', 'attempts', 'retriesLeft', 'automatic', 'idempotencyKey', 'requestHash', 'fee', 'feeBps'],
          ...['feeFixed', 'expiresAt', 'expiresIn'],
        ] as const
      ).map(col),
    );
    created = inserted.length;
    if (deps.config.acquirer !== 'sandbox') await sendToPsp(deps, tx, charges, inserted);
  }
  await run(sql.PLAN_MANDATES, [
    plans.map(({ m }) => m.id),
    plans.map(({ plan }) => plan.nextCycle),
    plans.map(({ plan }) => plan.autoChargeOn),
  ]);
  return { locked: rows.length, created };
}

// With a PSP, each new charge's cobr is registered by a job (the charges module's), committed with it.
async function sendToPsp(deps: DailyDeps, tx: EntityManager, charges: NewCharge[], inserted: { id: string }[]) {
  const ids = new Set(inserted.map((r) => r.id));
  const jobs = charges
    .filter((c) => ids.has(c.id))
    .map(({ request }) => ({ data: { op: 'create' as const, request }, singletonKey: request.txid }));
  await enqueueMany(deps.boss, tx, QUEUES.recurringChargeSync, jobs);
}

type NewCharge = ReturnType<typeof newCharge>;

// A cycle's charge as a manual creation makes it (recurring-charges.service.ts): the merchant's fee frozen now, the
// hidden charge valid until the end of the day the recurring charge expires (São Paulo), its DUE_DATE attempt
// SCHEDULED, retries as the mandate's policy allows; ACTIVE at once with the sandbox, CREATED until a PSP schedules it.
function newCharge(deps: DailyDeps, m: sql.DueMandateRow, c: { cycle: number; dueDate: string }, now: Date) {
  const amount = amountOf(m)!;
  const { bps: feeBps, fixed: feeFixed } = effectiveFee(
    { feeBps: m.fee_bps, feeFixed: m.fee_fixed },
    { bps: deps.config.platformFeeBps, fixed: deps.config.platformFeeFixed },
  );
  const chargeId = newId();
  const txid = chargeId.replaceAll('-', '');
  const expiresAt = new Date(endOfSaoPauloDay(expiresOn(c.dueDate)).getTime() + 999);
  const attempt = { date: c.dueDate, kind: 'DUE_DATE', status: 'SCHEDULED', failureCode: null, endToEndId: null };
  return {
    id: newId(),
    chargeId,
    merchantId: m.merchant_id,
    mandateId: m.id,
    txid,
    cycle: c.cycle,
    dueDate: c.dueDate,
    amount,
    description: m.object,
    status: deps.config.acquirer === 'sandbox' ? R.activate.to : 'CREATED',
    attempts: JSON.stringify([{ ...attempt, at: now.toISOString() }]),
    retriesLeft: m.retry_policy === 'THREE_IN_SEVEN_DAYS' ? RETRY.max : 0,
    automatic: 'true',
    idempotencyKey: null,
    requestHash: null,
    fee: platformFee(amount, { bps: feeBps, fixed: feeFixed }),
    feeBps,
    feeFixed,
    expiresAt: expiresAt.toISOString(),
    expiresIn: Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000)),
    request: {
      txid,
      recId: m.rec_id,
      dueDate: c.dueDate,
      amount,
      description: m.object,
      payer: { name: m.customer_name, document: m.customer_document },
    },
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
  const mandates = await drain(em, async (tx) => {
    const rows = await ormSql(tx).query<MandateRow>(sql.EXPIRE_MANDATES, [cutoff, day, BATCH, now, at]);
    const data = (r: MandateRow) => mandateView(r, publicBaseUrl);
    await recordEvents(
      tx,
      deps.boss,
      rows.map((r) => ({ merchantId: r.merchant_id, type: M.expire.event, data: data(r) })),
    );
    return rows.length;
  });
  const lastDue = plusDays(day, -(RETRY.lastDay + 1)); // expiresOn(lastDue) === day
  const charges = await drain(em, async (tx) => {
    const rows = await ormSql(tx).query<RecurringChargeRow>(sql.EXPIRE_RECURRING_CHARGES, [lastDue, BATCH, now, at]);
    const data = recurringChargeView;
    await recordEvents(
      tx,
      deps.boss,
      rows.map((r) => ({ merchantId: r.merchant_id, type: R.expire.event, data: data(r) })),
    );
    return rows.length;
  });
  return mandates + charges;
}

// Runs `batch` in a transaction of its own until it finds nothing left to do; the rows it did.
async function drain(em: EntityManager, batch: (tx: EntityManager) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await transactional(em.fork(), batch);
    if (n === 0) return total;
    total += n;
  }
}
