// Every status change of a mandate (MANDATE_TRANSITIONS, transitions.ts): one guarded UPDATE each, its history entry
// and its mandate.* event in the same transaction. Idempotent: a transition that finds the row already moved does
// nothing and returns the current view (`changed: false`). Called by the routes (merchant, sandbox payer), the PSP's
// callbacks and polling (apipix), and the daily expiries.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { NotFoundError } from '../platform/errors.ts';
import { transactional } from '../platform/transaction.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { isUuid } from '../platform/base.entity.ts';
import { ormSql } from '../platform/sql.ts';
import { recordEvents, type NewEvent } from '../webhooks/outbox.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import { MANDATE_TRANSITIONS, REQUEST_REPORTED, type RequestStatus } from './transitions.ts';
import { cancelRecurringChargesOfMandate } from './recurring-charges.states.ts';
import * as sql from './mandates.sql.ts';
import { mandateView, type MandateView } from './mandates.view.ts';

type Deps = Pick<Services, 'boss' | 'config' | 'clock'>;
export type MandateChange = { mandate: MandateView; changed: boolean };

const T = MANDATE_TRANSITIONS;

export const MANDATE_NOT_FOUND = 'Autorização não encontrada';

async function read(em: EntityManager, mandateId: string, lock = false): Promise<sql.MandateRow> {
  const [row] = isUuid(mandateId)
    ? await ormSql(em).query<sql.MandateRow>(lock ? sql.LOCK : sql.BY_ID, [mandateId])
    : [];
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
 * the PSP's word is taken as it is, the sandbox payer's is checked against minAmount by its route). A PUSH mandate's
 * SENT request becomes ACCEPTED.
 */
export async function approveMandate(
  deps: Deps,
  em: EntityManager,
  input: { mandateId: string; payerMaxAmount: number | null },
): Promise<MandateChange> {
  return transactional(em, async (tx) => {
    const m = await read(tx, input.mandateId);
    const max = m.amount === null ? input.payerMaxAmount : null; // a fixed mandate has no payer's maximum
    const [moved] = await ormSql(tx).query<sql.MandateRow>(sql.APPROVE, [deps.clock().toISOString(), m.id, max]);
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
    const [moved] = await ormSql(tx).query<sql.MandateRow>(sql.REJECT, [deps.clock().toISOString(), input.mandateId]);
    if (!moved) await read(tx, input.mandateId); // 404 for an unknown one
    return settle(deps, tx, input.mandateId, moved, T.reject.event);
  });
}

/**
 * Cancelled by the merchant or the payer: CANCELED with `cancellation`. An APPROVED mandate's recurring charges still
 * CREATED or ACTIVE whose due date is after today are cancelled with it (their hidden charges rows CANCELED, their
 * SCHEDULED attempt CANCELED, recurring_charge.canceled each: cancelRecurringChargesOfMandate, as the merchant's
 * PATCH of one does). Lock order: the mandate, its charges' hidden rows (txid order), the recurring rows. The merchant's
 * cancellation is sent to the PSP by the worker.
 */
export async function cancelMandate(
  deps: Deps & Pick<AcquirerDeps, 'acquirer'>, // its recurring charges' cancellation asks the PSP (apipix)
  em: EntityManager,
  input: { mandateId: string; by: 'PAYER' | 'MERCHANT'; reason: string | null },
): Promise<MandateChange> {
  return transactional(em, async (tx) => {
    const locked = await read(tx, input.mandateId, true);
    const at = deps.clock().toISOString();
    const cancellation = JSON.stringify({ by: input.by, reason: input.reason });
    const [moved] = await ormSql(tx).query<sql.MandateRow>(sql.CANCEL, [at, locked.id, cancellation]);
    if (!moved) return settle(deps, tx, locked.id, moved, T.cancel.event);
    if (locked.status === 'APPROVED')
      await cancelRecurringChargesOfMandate(deps, tx, { mandateId: moved.id, today: saoPauloDate(deps.clock()) });
    if (input.by === 'MERCHANT') await enqueue(deps.boss, tx, QUEUES.mandateCancel, { recId: moved.rec_id });
    return settle(deps, tx, locked.id, moved, T.cancel.event);
  });
}

// A PUSH mandate's request as the payer's PSP reports it (REQUEST_REPORTED; no event: the mandate's own status carries
// the outcome).
export async function setRequestStatus(
  deps: Pick<Services, 'config'>,
  em: EntityManager,
  input: { mandateId: string; status: RequestStatus },
): Promise<MandateView> {
  if (!isUuid(input.mandateId)) throw new NotFoundError(MANDATE_NOT_FOUND);
  const t = REQUEST_REPORTED[input.status];
  const [moved] = await ormSql(em).query<sql.MandateRow>(sql.SET_REQUEST_STATUS, [t.to, input.mandateId, t.from]);
  return mandateView(moved ?? (await read(em, input.mandateId)), deps.config.publicBaseUrl);
}

// The mandate a PSP's recId names (its callbacks and polls speak of recIds); null when none.
export async function mandateIdByRecId(em: EntityManager, recId: string): Promise<string | null> {
  const [row] = await ormSql(em).query<{ id: string }>(sql.ID_BY_REC_ID, [recId]);
  return row?.id ?? null;
}
