// The recurring charges' use cases beside their states: creation with the contract's rules, the reads, refunds (through
// src/refunds on the RECURRING charges row) and the sandbox's attempt.
import { createHash } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { sandboxEndToEndId } from '../acquirer/sandbox.ts';
import { BusinessRuleError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { createOnce } from '../platform/idempotency.ts';
import { countedPage } from '../platform/counters.ts';
import { ormSql } from '../platform/sql.ts';
import { enqueue, enqueueJoined, QUEUES } from '../platform/queue.ts';
import { transactional } from '../platform/transaction.ts';
import { effectiveFee, platformFee } from '../money/money.ts';
import { endOfSaoPauloDay, saoPauloDate } from '../charges/due-date.ts';
import { refundView } from '../refunds/refunds.view.ts';
import { createRefund, listRefunds, type RefundInput } from '../refunds/refunds.service.ts';
import type { RecurringChargeStatus } from './recurring-charge.entity.ts';
import { cycleOf, expiresOn, inWindow, RETRY } from './calendar.ts';
import { recurringChargeView, type RecurringAttemptRow, type RecurringChargeRow } from './recurring-charges.view.ts';
import { attemptRejected, NOT_FOUND } from './recurring-charges.states.ts';
import { RECURRING_CHARGE_TRANSITIONS } from './transitions.ts';
import * as sql from './recurring-charges.sql.ts';

export type CreateRecurringChargeInput = { mandateId: string; dueDate: string; amount: number; description?: string };

export const MANDATE_NOT_FOUND = 'Autorização não encontrada';
export const CREATE_RULES = {
  approved: 'A autorização precisa estar APPROVED para receber cobranças',
  window: 'dueDate deve estar entre hoje + 2 e hoje + 10 dias',
  period: 'dueDate deve estar entre startDate e endDate da autorização',
  amount: (fixed: number) => `amount deve ser o valor fixo da autorização (${fixed} centavos)`,
  cycle: 'Já existe uma cobrança recorrente ativa neste ciclo da autorização',
};
export const NO_SCHEDULED_ATTEMPT = 'Nenhuma tentativa agendada (SCHEDULED) nesta cobrança recorrente';

type Deps = Pick<AcquirerDeps, 'acquirer' | 'config' | 'boss' | 'clock'>;

/**
 * The txid (26..35 alphanumerics): derived from the merchant and the idempotency key when there is one, so a repeat
 * registers the same cobr at the PSP (idempotent by txid); distinct from the charges' (`rec:`), which share the
 * charges table's unique txid.
 */
function txidFor(id: string, merchantId: string, idempotencyKey: string | undefined): string {
  if (!idempotencyKey) return id.replaceAll('-', '');
  return createHash('sha256').update(`${merchantId}:rec:${idempotencyKey}`).digest('hex').slice(0, 32);
}

// The contract's rules on a locked mandate, in its order: each a 422 naming the rule.
function checkRules(m: sql.MandateForCharge, input: CreateRecurringChargeInput, today: string) {
  if (m.status !== 'APPROVED') throw new BusinessRuleError(CREATE_RULES.approved, 'mandate_not_approved');
  if (!inWindow(today, input.dueDate)) throw new BusinessRuleError(CREATE_RULES.window, 'due_date_out_of_window');
  if (input.dueDate < m.start_date || (m.end_date !== null && input.dueDate > m.end_date))
    throw new BusinessRuleError(CREATE_RULES.period, 'due_date_out_of_period');
  if (m.amount !== null && input.amount !== m.amount)
    throw new BusinessRuleError(CREATE_RULES.amount(m.amount), 'mandate_amount_mismatch');
}

// A duplicate creation under an idempotency key found inside the transaction: createOnce answers it as a replay.
const duplicateKey = () => new UniqueConstraintViolationException(new Error('idempotency key already used'));

/**
 * POST /v1/mandates/:id/charges: one cycle's charge, with the contract's rules (each a 422, nothing stored). In one
 * transaction under the mandate's row lock (so two creations for one cycle, or a creation and the mandate's
 * cancellation, take turns): the rules, the cycle's live charge, then the recurring charge with its DUE_DATE attempt
 * SCHEDULED and its RECURRING charges row (sql.INSERT_RECURRING_CHARGES, whose partial unique index is the last word
 * on the cycle). The sandbox's payer PSP schedules it at once (ACTIVE); with apipix it is CREATED and a job PUTs the
 * cobr.
 */
export async function createRecurringCharge(
  deps: Deps,
  em: EntityManager,
  merchantId: string,
  input: CreateRecurringChargeInput,
  idempotencyKey?: string,
) {
  const find = async () => {
    const [r] = await ormSql(em.fork()).query<RecurringChargeRow & { request_hash: string | null }>(sql.BY_KEY, [
      merchantId,
      idempotencyKey,
    ]);
    return r ? { ...r, requestHash: r.request_hash } : null;
  };
  const { result, replayed } = await createOnce(idempotencyKey, input, {
    find,
    replay: (r) => recurringChargeView(r),
    create: (requestHash) =>
      transactional(em, async (tx) => {
        if (!isUuid(input.mandateId)) throw new NotFoundError(MANDATE_NOT_FOUND);
        const q = ormSql(tx);
        const [m] = await q.query<sql.MandateForCharge>(sql.LOCK_MANDATE, [input.mandateId, merchantId]);
        if (!m) throw new NotFoundError(MANDATE_NOT_FOUND);
        if (idempotencyKey && (await q.query(sql.BY_KEY, [merchantId, idempotencyKey])).length) throw duplicateKey();
        const now = deps.clock();
        checkRules(m, input, saoPauloDate(now));
        const cycle = cycleOf(m.start_date, m.frequency, input.dueDate);
        if ((await q.query(sql.LIVE_IN_CYCLE, [m.id, cycle])).length)
          throw new BusinessRuleError(CREATE_RULES.cycle, 'cycle_already_charged');
        const id = newId();
        const txid = txidFor(id, merchantId, idempotencyKey);
        const sandbox = deps.acquirer.name === 'sandbox';
        const attempt: RecurringAttemptRow = {
          date: input.dueDate,
          kind: 'DUE_DATE',
          status: 'SCHEDULED',
          failureCode: null,
          endToEndId: null,
          at: now.toISOString(),
        };
        const feeTerms = effectiveFee(
          { feeBps: m.fee_bps, feeFixed: m.fee_fixed },
          { bps: deps.config.platformFeeBps, fixed: deps.config.platformFeeFixed },
        );
        const expiresAt = new Date(endOfSaoPauloDay(expiresOn(input.dueDate)).getTime() + 999);
        const inserted = await q.query<{ id: string }>(
          sql.INSERT_RECURRING_CHARGES,
          [
            id,
            newId(),
            merchantId,
            m.id,
            txid,
            cycle,
            input.dueDate,
            input.amount,
            input.description ?? null,
            sandbox ? RECURRING_CHARGE_TRANSITIONS.activate.to : 'CREATED',
            JSON.stringify([attempt]),
            m.retry_policy === 'THREE_IN_SEVEN_DAYS' ? RETRY.max : 0,
            false,
            idempotencyKey ?? null,
            requestHash,
            platformFee(input.amount, feeTerms),
            feeTerms.bps,
            feeTerms.fixed,
            expiresAt.toISOString(),
            Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000)),
          ].map((v) => [v]), // one charge: an array of one each
        );
        if (!inserted.length) throw new BusinessRuleError(CREATE_RULES.cycle, 'cycle_already_charged');
        if (!sandbox) {
          const request = {
            txid,
            recId: m.rec_id,
            dueDate: input.dueDate,
            amount: input.amount,
            description: input.description ?? null,
            payer: { name: m.customer_name, document: m.customer_document },
          };
          await enqueue(deps.boss, tx, QUEUES.recurringChargeSync, { op: 'create', request });
        }
        const [row] = await q.query<RecurringChargeRow>(sql.BY_ID, [id, merchantId]);
        return recurringChargeView(row);
      }),
  });
  return { recurringCharge: result, replayed };
}

// The merchant's recurring charge as a row; 404 when there is none.
async function findRow(em: EntityManager, merchantId: string, id: string): Promise<RecurringChargeRow> {
  const [r] = isUuid(id) ? await ormSql(em).query<RecurringChargeRow>(sql.BY_ID, [id, merchantId]) : [];
  if (!r) throw new NotFoundError(NOT_FOUND);
  return r;
}

// GET /v1/recurring-charges/:id
export async function getRecurringCharge(em: EntityManager, merchantId: string, id: string) {
  return recurringChargeView(await findRow(em, merchantId, id));
}

/**
 * GET /v1/recurring-charges: newest first, optionally of one status (total from the append-only counters); of one
 * mandate (a charge per cycle: few), counted directly over its index.
 */
export async function listRecurringCharges(
  em: EntityManager,
  merchantId: string,
  q: { page: number; limit: number; mandateId?: string; status?: RecurringChargeStatus },
) {
  const offset = (q.page - 1) * q.limit;
  if (q.mandateId) {
    const status = q.status ?? null;
    const filter = [merchantId, q.mandateId, status];
    const [{ total }] = await ormSql(em).query<{ total: string }>(sql.MANDATE_TOTAL, filter);
    const rows = await ormSql(em).query<RecurringChargeRow>(sql.MANDATE_PAGE, [...filter, q.limit, offset]);
    return { page: q.page, limit: q.limit, total: Number(total), recurringCharges: rows.map(recurringChargeView) };
  }
  const { total, rows } = await countedPage<RecurringChargeRow>(
    em,
    sql.RECURRING_CHARGE_PAGE,
    { merchant_id: merchantId, status: q.status },
    q.page,
    q.limit,
  );
  return { page: q.page, limit: q.limit, total, recurringCharges: rows.map(recurringChargeView) };
}

/**
 * POST /v1/recurring-charges/:id/refunds: a refund of its RECURRING charges row through src/refunds (the charges'
 * rules and messages: partial, multiple, within 90 days of the payment); answers with the recurring charge and the
 * refund. Its completion records recurring_charge.refunded (src/charges).
 */
export async function requestRecurringRefund(
  deps: Pick<Deps, 'boss' | 'config'>,
  em: EntityManager,
  merchantId: string,
  id: string,
  input: RefundInput,
  idempotencyKey?: string,
) {
  const rc = await findRow(em, merchantId, id);
  const { refund, replayed } = await createRefund(
    deps,
    em,
    { merchantId, chargeId: rc.charge_id, recurring: true },
    input,
    idempotencyKey,
  );
  const now = await findRow(em.fork(), merchantId, id);
  return { recurringCharge: recurringChargeView(now), refund: refundView(refund), replayed };
}

// GET /v1/recurring-charges/:id/refunds
export async function listRecurringRefunds(em: EntityManager, merchantId: string, id: string) {
  const rc = await findRow(em, merchantId, id);
  return listRefunds(em, merchantId, rc.charge_id, true);
}

/**
 * Sandbox: the payer's PSP settles the SCHEDULED attempt (404 without one). PAID within the payer's maximum: the
 * payment notification a real PSP sends (as the sandbox's charge pay does), through the same queue, settled by the
 * worker (PAID arrives asynchronously); above it the attempt is REJECTED with AM02; REJECTED with `failureCode`
 * (default AM04, insufficient funds).
 */
export async function simulateAttempt(
  deps: Pick<Deps, 'boss' | 'clock'>,
  em: EntityManager,
  merchantId: string,
  id: string,
  { outcome, failureCode }: { outcome: 'PAID' | 'REJECTED'; failureCode?: string },
) {
  const rc = await findRow(em, merchantId, id);
  const attempt = rc.attempts.find((a) => a.status === 'SCHEDULED');
  if (!attempt || !['CREATED', 'ACTIVE'].includes(rc.status))
    throw new NotFoundError(NO_SCHEDULED_ATTEMPT, 'no_scheduled_attempt');
  const [m] = await ormSql(em).query<{ payer_max_amount: number | null }>(sql.PAYER_MAX, [rc.mandate_id]);
  const withinMax = m.payer_max_amount === null || rc.amount <= m.payer_max_amount;
  if (outcome === 'PAID' && withinMax) {
    const paidAt = deps.clock();
    const endToEndId = sandboxEndToEndId(paidAt);
    const payment = {
      txid: rc.txid,
      endToEndId,
      amount: rc.amount,
      paidAt: paidAt.toISOString(),
      simulated: true as const,
    };
    await enqueueJoined(deps.boss, QUEUES.acquirerNotification, [{ data: payment, singletonKey: endToEndId }]);
    return { paid: true as const, endToEndId, recurringCharge: recurringChargeView(rc) };
  }
  const code = outcome === 'PAID' ? 'AM02' : (failureCode ?? 'AM04');
  const after = await attemptRejected(deps, em, { txid: rc.txid, date: attempt.date, failureCode: code });
  return { paid: false as const, recurringCharge: after ?? recurringChargeView(rc) };
}
