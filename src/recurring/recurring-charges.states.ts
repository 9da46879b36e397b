// Every status change of a recurring charge and of its attempts (contract: Pix Automático). Each is one guarded UPDATE
// from RECURRING_CHARGE_TRANSITIONS with its event in the same transaction; the attempts change only under the row's
// lock, taken after its RECURRING charges row's (the lock order: mandate, hidden charge, recurring charge, ledger).
// The sandbox's routes, the PSP's callbacks (apipix branch) and the settlement call these.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import type { Services } from '../platform/services.ts';
import { BusinessRuleError, ConflictError, NotFoundError } from '../platform/errors.ts';
import { ormSql } from '../platform/sql.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { transactional } from '../platform/transaction.ts';
import { recordEvents } from '../webhooks/outbox.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import type { MerchantChargeRow } from '../charges/charge-row.ts';
import { isUuid } from '../platform/base.entity.ts';
import { ATTEMPT_FAILED_EVENT, FINAL_FAILURE_CODES, RECURRING_CHARGE_TRANSITIONS } from './transitions.ts';
import { plusDays, RETRY } from './calendar.ts';
import { recurringChargeView, type RecurringAttemptRow, type RecurringChargeRow } from './recurring-charges.view.ts';
import { recurringPaymentTransaction, type LedgerTransaction } from './recurring.money.ts';
import * as sql from './recurring-charges.sql.ts';

const T = RECURRING_CHARGE_TRANSITIONS;
const OPEN = ['CREATED', 'ACTIVE'] as const;

export const NOT_FOUND = 'Cobrança recorrente não encontrada';
export const RULES = {
  cancelStatus: 'Somente cobranças recorrentes CREATED ou ACTIVE podem ser canceladas',
  cancelDue: 'A cobrança recorrente só pode ser cancelada antes do vencimento (dueDate)',
  retryPolicy: 'Novas tentativas exigem uma autorização com retryPolicy THREE_IN_SEVEN_DAYS',
  retryScheduled: 'Já há uma tentativa agendada (SCHEDULED) para esta cobrança recorrente',
  retryState: 'Nova tentativa só para cobrança ACTIVE com a última tentativa REJECTED',
  retryWindow: 'date deve estar entre dueDate + 1 e dueDate + 7',
  retryTomorrow: 'date deve ser a partir de amanhã',
  retrySameDay: 'Já houve uma tentativa nesta data',
  retryMax: `No máximo ${RETRY.max} novas tentativas por cobrança recorrente`,
};

type Locked = RecurringChargeRow & sql.LockedRow;
type StateDeps = Pick<AcquirerDeps, 'boss' | 'clock' | 'acquirer'>;

const view = (r: RecurringChargeRow) => recurringChargeView(r);

async function lockOf(tx: EntityManager, hidden: { id: string } | undefined): Promise<Locked | null> {
  if (!hidden) return null;
  const [r] = await ormSql(tx).query<Locked>(sql.LOCK_BY_CHARGE, [hidden.id]);
  return r ?? null;
}

// The merchant's recurring charge, locked (its charges row first); 404 when there is none.
async function lockById(tx: EntityManager, merchantId: string, id: string): Promise<Locked> {
  const [hidden] = isUuid(id) ? await ormSql(tx).query<{ id: string }>(sql.LOCK_HIDDEN_BY_ID, [id, merchantId]) : [];
  const r = await lockOf(tx, hidden);
  if (!r) throw new NotFoundError(NOT_FOUND);
  return r;
}

async function lockByTxid(tx: EntityManager, txid: string): Promise<Locked | null> {
  const [hidden] = await ormSql(tx).query<{ id: string }>(sql.LOCK_HIDDEN_BY_TXID, [txid]);
  return lockOf(tx, hidden);
}

const json = (attempts: RecurringAttemptRow[]) => JSON.stringify(attempts);

/**
 * The charge ends (FAILED by its attempts, CANCELED by the merchant or with its mandate), its attempts as given: the
 * guarded UPDATE, its RECURRING charges row CANCELED, its event; a cancellation with apipix also cancels the cobr.
 * Returns the new view, or null when the transition found the row moved already.
 */
async function end(
  deps: Pick<AcquirerDeps, 'boss'> & Partial<Pick<AcquirerDeps, 'acquirer'>>,
  tx: EntityManager,
  r: Locked,
  to: 'fail' | 'cancel',
  attempts: RecurringAttemptRow[],
) {
  const [moved] = await ormSql(tx).query<{ id: string }>(sql.MOVE[to], [json(attempts), r.retries_left, r.id]);
  if (!moved) return null;
  await ormSql(tx).run(sql.CANCEL_HIDDEN, [r.charge_id]);
  const data = view({ ...r, status: T[to].to, attempts });
  await recordEvents(tx, deps.boss, [{ merchantId: r.merchant_id, type: T[to].event, data }]);
  if (to === 'cancel' && deps.acquirer && deps.acquirer.name !== 'sandbox')
    await enqueue(deps.boss, tx, QUEUES.recurringChargeSync, { op: 'cancel', txid: r.txid });
  return data;
}

const cancelScheduled = (attempts: RecurringAttemptRow[], at: string) =>
  attempts.map((a) => (a.status === 'SCHEDULED' ? { ...a, status: 'CANCELED' as const, at } : a));

/** The payer's PSP scheduled it (apipix ATIVA): CREATED -> ACTIVE; null for an unknown txid. Idempotent. */
export async function activateRecurringCharge(_deps: unknown, em: EntityManager, { txid }: { txid: string }) {
  return transactional(em, async (tx) => {
    const r = await lockByTxid(tx, txid);
    if (!r) return null;
    const [moved] = await ormSql(tx).query<{ id: string }>(sql.MOVE.activate, [json(r.attempts), r.retries_left, r.id]);
    return view(moved ? { ...r, status: T.activate.to } : r);
  });
}

/**
 * An attempt was rejected (the payer's PSP, or the sandbox): the SCHEDULED attempt of `date` REJECTED with its code.
 * The charge stays ACTIVE (recurring_charge.attempt_failed) while its mandate allows retries and retries remain;
 * otherwise, or with a code that ends it (AC05, AM02, MD01, AG12), it is FAILED (recurring_charge.failed) and its
 * RECURRING charges row CANCELED. An attempt already settled changes nothing (idempotent); null for an unknown txid.
 */
export async function attemptRejected(
  deps: Pick<Services, 'boss' | 'clock'>,
  em: EntityManager,
  { txid, date, failureCode }: { txid: string; date: string; failureCode: string },
) {
  return transactional(em, async (tx) => {
    const r = await lockByTxid(tx, txid);
    if (!r) return null;
    const i = r.attempts.findIndex((a) => a.status === 'SCHEDULED' && a.date === date);
    if (i < 0 || !(OPEN as readonly string[]).includes(r.status)) return view(r);
    const at = deps.clock().toISOString();
    const attempts = r.attempts.map((a, j) => (j === i ? { ...a, status: 'REJECTED' as const, failureCode, at } : a));
    const final =
      (FINAL_FAILURE_CODES as readonly string[]).includes(failureCode) ||
      r.retry_policy !== 'THREE_IN_SEVEN_DAYS' ||
      r.retries_left === 0;
    if (final) return (await end(deps, tx, r, 'fail', attempts)) ?? view(r);
    await ormSql(tx).run(sql.SET_ATTEMPTS, [json(attempts), r.retries_left, r.id, OPEN]);
    const data = view({ ...r, attempts });
    await recordEvents(tx, deps.boss, [{ merchantId: r.merchant_id, type: ATTEMPT_FAILED_EVENT, data }]);
    return data;
  });
}

/**
 * In the settlement's transaction (src/payments, through payCharges), after the RECURRING charges rows were paid and
 * locked: their recurring charges PAID (paidAt, paidAmount, fee, the SCHEDULED attempt PAID with the endToEndId) with
 * recurring_charge.paid; returns the ledger transactions of the payments (posted with the batch's others, last).
 */
export async function recurringChargesPaid(
  deps: Pick<Services, 'boss'>,
  tx: EntityManager,
  rows: MerchantChargeRow[],
): Promise<LedgerTransaction[]> {
  if (rows.length === 0) return [];
  const paidAt = (r: MerchantChargeRow) => new Date(r.paid_at!).toISOString();
  const paid = await ormSql(tx).query<RecurringChargeRow>(sql.PAY, [
    rows.map((r) => r.id),
    rows.map((r) => r.end_to_end_id),
    rows.map(paidAt),
    rows.map((r) => r.paid_amount ?? r.amount),
    rows.map((r) => r.fee),
    rows.map(paidAt),
  ]);
  await recordEvents(
    tx,
    deps.boss,
    paid.map((r) => ({ merchantId: r.merchant_id, type: T.pay.event, data: view(r) })),
  );
  return rows.map((r) =>
    recurringPaymentTransaction({ chargeId: r.id, owner: r.merchant_id, paid: r.paid_amount ?? r.amount, fee: r.fee }),
  );
}

/**
 * PATCH /v1/recurring-charges/:id { status: CANCELED }: by the merchant while CREATED or ACTIVE and before its due
 * date (422 otherwise); its SCHEDULED attempt CANCELED, its RECURRING charges row CANCELED, recurring_charge.canceled;
 * with apipix a job cancels the cobr.
 */
export async function cancelRecurringCharge(deps: StateDeps, em: EntityManager, merchantId: string, id: string) {
  return transactional(em, async (tx) => {
    const r = await lockById(tx, merchantId, id);
    if (!(OPEN as readonly string[]).includes(r.status))
      throw new BusinessRuleError(RULES.cancelStatus, 'recurring_charge_not_cancelable');
    if (saoPauloDate(deps.clock()) >= r.due_date) throw new BusinessRuleError(RULES.cancelDue, 'cancel_after_due_date');
    const attempts = cancelScheduled(r.attempts, deps.clock().toISOString());
    const data = await end(deps, tx, r, 'cancel', attempts);
    if (!data) throw new BusinessRuleError(RULES.cancelStatus, 'recurring_charge_not_cancelable');
    return data;
  });
}

/**
 * Cancelling a mandate (mandates.states, in its transaction, the mandate locked): its recurring charges still CREATED
 * or ACTIVE due after `today` are CANCELED as the merchant's PATCH does, their charges rows locked in txid order.
 * Returns how many.
 */
export async function cancelRecurringChargesOfMandate(
  deps: StateDeps,
  tx: EntityManager,
  { mandateId, today }: { mandateId: string; today: string },
): Promise<number> {
  const hidden = await ormSql(tx).query<{ id: string }>(sql.LOCK_OPEN_OF_MANDATE, [mandateId, today]);
  let canceled = 0;
  for (const h of hidden) {
    const r = await lockOf(tx, h);
    if (!r) continue;
    if (await end(deps, tx, r, 'cancel', cancelScheduled(r.attempts, deps.clock().toISOString()))) canceled++;
  }
  return canceled;
}

/**
 * POST /v1/recurring-charges/:id/retries { date }: a new attempt SCHEDULED on `date`, when the mandate allows retries,
 * none is SCHEDULED (409), the charge is ACTIVE with its last attempt REJECTED, dueDate + 1 <= date <= dueDate + 7,
 * date >= tomorrow, no attempt on that date yet and a retry is left (each 422 naming it). With apipix a job asks the
 * PSP for it.
 */
export async function retryRecurringCharge(
  deps: StateDeps,
  em: EntityManager,
  merchantId: string,
  id: string,
  date: string,
) {
  return transactional(em, async (tx) => {
    const r = await lockById(tx, merchantId, id);
    if (r.retry_policy !== 'THREE_IN_SEVEN_DAYS')
      throw new BusinessRuleError(RULES.retryPolicy, 'retry_policy_required');
    if (r.attempts.some((a) => a.status === 'SCHEDULED'))
      throw new ConflictError(RULES.retryScheduled, 'retry_already_scheduled');
    if (r.status !== 'ACTIVE' || r.attempts.at(-1)?.status !== 'REJECTED')
      throw new BusinessRuleError(RULES.retryState, 'retry_not_allowed');
    if (date < plusDays(r.due_date, RETRY.firstDay) || date > plusDays(r.due_date, RETRY.lastDay))
      throw new BusinessRuleError(RULES.retryWindow, 'retry_window');
    if (date < plusDays(saoPauloDate(deps.clock()), 1))
      throw new BusinessRuleError(RULES.retryTomorrow, 'retry_too_soon');
    if (r.attempts.some((a) => a.date === date)) throw new BusinessRuleError(RULES.retrySameDay, 'retry_same_day');
    if (r.retries_left <= 0) throw new BusinessRuleError(RULES.retryMax, 'retry_limit_reached');
    const attempt: RecurringAttemptRow = {
      date,
      kind: 'RETRY',
      status: 'SCHEDULED',
      failureCode: null,
      endToEndId: null,
      at: deps.clock().toISOString(),
    };
    const attempts = [...r.attempts, attempt];
    const [moved] = await ormSql(tx).query<{ id: string }>(sql.SET_ATTEMPTS, [
      json(attempts),
      r.retries_left - 1,
      r.id,
      ['ACTIVE'],
    ]);
    if (!moved) throw new BusinessRuleError(RULES.retryState, 'retry_not_allowed');
    if (deps.acquirer.name !== 'sandbox')
      await enqueue(deps.boss, tx, QUEUES.recurringChargeSync, { op: 'retry', txid: r.txid, date });
    return view({ ...r, attempts, retries_left: r.retries_left - 1 });
  });
}
