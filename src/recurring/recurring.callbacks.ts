// apipix: what the PSP says of a mandate (rec) or a recurring charge (cobr), fed to the states use cases. It comes
// from the port (GET /v2/rec/{idRec}, GET /v2/cobr/{txid}, or their listings): a callback only names what changed, and
// nothing in it is trusted. Every use case is idempotent, so a repeated callback, a poll that finds the same change
// and a change this service made itself do nothing twice. A payment is not learnt here: the cobr's Pix arrives as any
// Pix (its notification, or the payments' reconciliation) and settles the hidden charge that has the cobr's txid.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps, AcquirerMandate, AcquirerRecurringCharge } from '../acquirer/acquirer.ts';
import type { RecurringCallbackJob } from '../platform/queue.ts';
import { BusinessRuleError, NotFoundError } from '../platform/errors.ts';
import { ormSql } from '../platform/sql.ts';
import { approveMandate, cancelMandate, mandateIdByRecId, rejectMandate, setRequestStatus } from './mandates.states.ts';
import { activateRecurringCharge, attemptRejected, cancelRecurringCharge } from './recurring-charges.states.ts';
import * as sql from './recurring.callbacks.sql.ts';

type Deps = Pick<AcquirerDeps, 'boss' | 'config' | 'clock' | 'acquirer' | 'logger'>;
// unknown: no such mandate or charge here; gone: the PSP does not know it; refused: a rule of ours said no (an approval
// past expiresAt): logged, never retried forever.
export type Applied = 'applied' | 'unknown' | 'gone' | 'refused';

async function guarded(run: () => Promise<Applied>): Promise<Applied> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof BusinessRuleError || err instanceof NotFoundError) return 'refused';
    throw err;
  }
}

/** A mandate as the PSP sees it, applied: its PUSH request's status, then APPROVED, REJECTED or CANCELED. */
export const applyMandate = (deps: Deps, em: EntityManager, m: AcquirerMandate) => guarded(() => mandate(deps, em, m));

async function mandate(deps: Deps, em: EntityManager, m: AcquirerMandate): Promise<Applied> {
  const mandateId = await mandateIdByRecId(em, m.recId);
  if (!mandateId) return 'unknown'; // not ours (another service on the same PSP account), or never stored
  if (m.requestStatus && !(await staleRequest(em, mandateId, m)))
    await setRequestStatus(deps, em, { mandateId, status: m.requestStatus });
  if (m.status === 'APPROVED') await approveMandate(deps, em, { mandateId, payerMaxAmount: m.payerMaxAmount });
  else if (m.status === 'REJECTED') await rejectMandate(deps, em, { mandateId });
  else if (m.status === 'CANCELED') {
    const by = m.cancellation?.by ?? 'PAYER';
    await cancelMandate(deps, em, { mandateId, by, reason: m.cancellation?.reason ?? null });
  }
  // EXPIRED: the service's own expiry (the daily job) ends it on the same rule; CREATED: nothing yet
  return 'applied';
}

// The outcome of a request older than the current one: the merchant asked again (SENT here) after the PSP's last
// solicitação ended, and the new one is not at the PSP yet. Applying it would end the new request before it is sent.
async function staleRequest(em: EntityManager, mandateId: string, m: AcquirerMandate): Promise<boolean> {
  if (m.requestStatus === 'SENT' || !m.requestChangedAt) return false;
  const [row] = await ormSql(em).query<sql.RequestState>(sql.REQUEST_STATE, [mandateId]);
  return row?.request_status === 'SENT' && Date.parse(m.requestChangedAt) < new Date(row.updated_at).getTime();
}

/**
 * A recurring charge as the PSP sees it, applied: scheduled by the payer's PSP (anything past CRIADA) makes it
 * ACTIVE; each rejected tentativa is its attempt REJECTED with the PSP's code (the charge then FAILED or kept for a
 * retry by the service's rules); CANCELADA cancels it. PAGA settles through the Pix, EXPIRADA by the daily expiry.
 */
export const applyRecurringCharge = (deps: Deps, em: EntityManager, c: AcquirerRecurringCharge) =>
  guarded(() => recurringCharge(deps, em, c));

async function recurringCharge(deps: Deps, em: EntityManager, c: AcquirerRecurringCharge): Promise<Applied> {
  if (c.status === 'CANCELED') return canceledAtPsp(deps, em, c.txid);
  const scheduled = c.status === 'ACTIVE' || c.status === 'PAID' || c.attempts.length > 0;
  if (!scheduled) return 'applied'; // CRIADA, or ended before the payer's PSP took it
  const active = await activateRecurringCharge(deps, em, { txid: c.txid });
  if (!active) return 'unknown';
  for (const a of c.attempts) {
    if (a.status !== 'REJECTED') continue;
    await attemptRejected(deps, em, { txid: c.txid, date: a.date, failureCode: a.failureCode ?? 'FAIL' });
  }
  return 'applied';
}

// The payer (or its PSP) cancelled the scheduled charge, which the payer may do until the eve of its date: CANCELED
// here too, by the merchant's own rule (before its due date; on or after it, a rule of ours says no: 'refused'). One
// already ended (the merchant's cancellation, its mandate's cascade) is left as it is.
async function canceledAtPsp(deps: Deps, em: EntityManager, txid: string): Promise<Applied> {
  const [r] = await ormSql(em).query<sql.ChargeByTxid>(sql.CHARGE_BY_TXID, [txid]);
  if (!r) return 'unknown';
  if (r.status === 'CREATED' || r.status === 'ACTIVE') await cancelRecurringCharge(deps, em, r.merchant_id, r.id);
  return 'applied';
}

/** One callback's subject, asked about again through the port; null from the PSP: it does not know it. */
export async function applyCallback(deps: Deps, em: EntityManager, job: RecurringCallbackJob): Promise<Applied> {
  if ('recId' in job) {
    const m = await deps.acquirer.getMandate(job.recId);
    return m ? applyMandate(deps, em, m) : 'gone';
  }
  const c = await deps.acquirer.getRecurringCharge(job.txid);
  return c ? applyRecurringCharge(deps, em, c) : 'gone';
}
