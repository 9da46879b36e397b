// Every status change of a mandate (MANDATE_TRANSITIONS, transitions.ts): one guarded UPDATE each, its history entry
// and its mandate.* event in the same transaction. Idempotent: a transition that finds the row already moved does
// nothing and returns the current view (`changed: false`). Called by the routes (merchant, sandbox payer), the PSP's
// callbacks and polling (apipix), and the daily expiries.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { BusinessRuleError, NotFoundError } from '../platform/errors.ts';
import { transactional } from '../platform/transaction.ts';
import { pgArray } from '../platform/sql.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { isUuid } from '../platform/base.entity.ts';
import { recordEvents, type NewEvent } from '../webhooks/events.ts';
import { CHARGE_TRANSITIONS } from '../charges/charges.states.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import { MANDATE_TRANSITIONS, RECURRING_CHARGE_TRANSITIONS } from './transitions.ts';
import * as sql from './mandates.sql.ts';
import { mandateView, type MandateView } from './mandates.view.ts';

type Deps = Pick<Services, 'boss' | 'config' | 'clock'>;
export type MandateChange = { mandate: MandateView; changed: boolean };

const T = MANDATE_TRANSITIONS;
const APPROVE = sql.MOVE(T.approve, 'payer_max_amount');
const REJECT = sql.MOVE(T.reject, null);
const CANCEL = sql.MOVE(T.cancel, 'cancellation');
const CANCEL_HIDDEN = sql.CANCEL_HIDDEN_CHARGES(CHARGE_TRANSITIONS.expire);
const CANCEL_RECURRING = sql.CANCEL_RECURRING(RECURRING_CHARGE_TRANSITIONS.cancel);

export const MANDATE_NOT_FOUND = 'Autorização não encontrada';

async function read(em: EntityManager, mandateId: string, lock = false): Promise<sql.MandateRow> {
  const [row] = isUuid(mandateId) ? await em.execute<sql.MandateRow[]>(lock ? sql.LOCK : sql.BY_ID, [mandateId]) : [];
  if (!row) throw new NotFoundError(MANDATE_NOT_FOUND);
  return row;
}

const eventOf = (deps: Deps, row: sql.MandateRow, type: NewEvent['type']): NewEvent => ({
  merchantId: row.merchant_id,
  type,
  data: mandateView(row, deps.config.publicBaseUrl),
});

// A move that returned its row: the event, and the view. One that returned none: the row as it is now.
async function settle(
  deps: Deps,
  tx: EntityManager,
  mandateId: string,
  moved: sql.MandateRow | undefined,
  event: NewEvent['type'],
): Promise<MandateChange> {
  if (!moved) return { mandate: mandateView(await read(tx, mandateId), deps.config.publicBaseUrl), changed: false };
  await recordEvents(tx, deps.boss, [eventOf(deps, moved, event)]);
  return { mandate: mandateView(moved, deps.config.publicBaseUrl), changed: true };
}

/**
 * The payer approved (sandbox, or the PSP's APROVADA): APPROVED, with the maximum the payer set (a variable mandate's;
 * at least its minAmount, else 422). A PUSH mandate's SENT request becomes ACCEPTED.
 */
export async function approveMandate(
  deps: Deps,
  em: EntityManager,
  input: { mandateId: string; payerMaxAmount: number | null },
): Promise<MandateChange> {
  return transactional(em, async (tx) => {
    const m = await read(tx, input.mandateId);
    const max = m.amount === null ? input.payerMaxAmount : null; // a fixed mandate has no payer's maximum
    if (m.status === 'CREATED' && max !== null && m.min_amount !== null && max < m.min_amount)
      throw new BusinessRuleError(`payerMaxAmount deve ser maior ou igual a minAmount (${m.min_amount})`);
    const [moved] = await tx.execute<sql.MandateRow[]>(APPROVE, [deps.clock().toISOString(), max, m.id]);
    return settle(deps, tx, m.id, moved, T.approve.event);
  });
}

// The payer rejected: REJECTED (a PUSH mandate's SENT request REJECTED). A QR_WITH_PAYMENT charge already paid stays
// PAID (contract: no automatic refund).
export async function rejectMandate(
  deps: Deps,
  em: EntityManager,
  input: { mandateId: string },
): Promise<MandateChange> {
  return transactional(em, async (tx) => {
    const [moved] = await tx.execute<sql.MandateRow[]>(REJECT, [deps.clock().toISOString(), input.mandateId]);
    if (!moved) await read(tx, input.mandateId); // 404 for an unknown one
    return settle(deps, tx, input.mandateId, moved, T.reject.event);
  });
}

/**
 * Cancelled by the merchant or the payer: CANCELED with `cancellation`. An APPROVED mandate's recurring charges still
 * CREATED or ACTIVE whose due date is after today are cancelled with it (their hidden charges rows CANCELED, their
 * SCHEDULED attempt CANCELED, recurring_charge.canceled each). Lock order: the mandate, its charges' hidden rows
 * (txid order), the recurring rows. The merchant's cancellation is sent to the PSP by the worker.
 */
export async function cancelMandate(
  deps: Deps,
  em: EntityManager,
  input: { mandateId: string; by: 'PAYER' | 'MERCHANT'; reason: string | null },
): Promise<MandateChange> {
  return transactional(em, async (tx) => {
    const locked = await read(tx, input.mandateId, true);
    const at = deps.clock().toISOString();
    const cancellation = JSON.stringify({ by: input.by, reason: input.reason });
    const [moved] = await tx.execute<sql.MandateRow[]>(CANCEL, [at, cancellation, locked.id]);
    if (!moved) return settle(deps, tx, locked.id, moved, T.cancel.event);
    const charges = locked.status === 'APPROVED' ? await cancelOpenCharges(tx, moved, at, deps.clock()) : [];
    await recordEvents(
      tx,
      deps.boss,
      charges.map((r) => ({
        merchantId: r.merchant_id,
        type: RECURRING_CHARGE_TRANSITIONS.cancel.event,
        data: canceledChargeView(r, moved.rec_id),
      })),
    );
    if (input.by === 'MERCHANT') await enqueue(deps.boss, tx, QUEUES.mandateCancel, { recId: moved.rec_id });
    return settle(deps, tx, locked.id, moved, T.cancel.event);
  });
}

// The cascade: the open recurring charges due after today, their hidden charges first (lock order).
async function cancelOpenCharges(tx: EntityManager, m: sql.MandateRow, at: string, now: Date) {
  const ids = (await tx.execute<{ id: string }[]>(sql.LOCK_OPEN_CHARGES, [m.id, saoPauloDate(now)])).map((r) => r.id);
  if (ids.length === 0) return [];
  await tx.execute(CANCEL_HIDDEN, [pgArray(ids)]);
  return tx.execute<sql.CanceledRecurringRow[]>(CANCEL_RECURRING, [at, pgArray(ids)]);
}

// A cancelled recurring charge as its event carries it (components RecurringCharge; never paid, nothing refunded).
function canceledChargeView(r: sql.CanceledRecurringRow, recId: string) {
  const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());
  return {
    id: r.id,
    txid: r.txid,
    mandateId: r.mandate_id,
    recId,
    cycle: r.cycle,
    dueDate: r.due_date,
    amount: r.amount,
    description: r.description,
    status: r.status,
    attempts: r.attempts.map((a) => ({
      date: a.date,
      kind: a.kind,
      status: a.status,
      failureCode: a.failureCode,
      endToEndId: a.endToEndId,
      at: a.at,
    })),
    retriesLeft: r.retries_left,
    paidAt: iso(r.paid_at),
    paidAmount: r.paid_amount,
    fee: r.fee,
    refundedAmount: 0,
    createdAt: iso(r.created_at),
  };
}

// A PUSH mandate's request as the payer's PSP reports it (no event: the mandate's own status carries the outcome).
export async function setRequestStatus(
  deps: Pick<Services, 'config'>,
  em: EntityManager,
  input: { mandateId: string; status: 'SENT' | 'ACCEPTED' | 'REJECTED' | 'EXPIRED' | 'CANCELED' },
): Promise<MandateView> {
  const [moved] = await em.execute<sql.MandateRow[]>(sql.SET_REQUEST_STATUS, [
    input.status,
    input.mandateId,
    input.status,
  ]);
  return mandateView(moved ?? (await read(em, input.mandateId)), deps.config.publicBaseUrl);
}

// The mandate a PSP's recId names (its callbacks and polls speak of recIds); null when none.
export async function mandateIdByRecId(em: EntityManager, recId: string): Promise<string | null> {
  const [row] = await em.execute<{ id: string }[]>(sql.ID_BY_REC_ID, [recId]);
  return row?.id ?? null;
}
