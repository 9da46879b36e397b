// Every status change of a MED infraction, with the money it blocks, returns or releases.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { AcquirerDeps, AcquirerInfraction } from '../acquirer/acquirer.ts';
import { BusinessRuleError, ConflictError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { ormSql, type Transition } from '../platform/sql.ts';
import { recordEvent, recordEvents } from '../webhooks/outbox.ts';
import type { EventType } from '../webhooks/catalog.ts';
import { accounts, post } from '../ledger/ledger.service.ts';
import { markRefunded } from '../charges/charges.states.ts';
import type { InfractionStatus } from './infraction.entity.ts';
import * as sql from './infractions.sql.ts';
import { infractionView, type InfractionView } from './infractions.view.ts';
import { transactional } from '../platform/transaction.ts';

type Deps = Pick<Services, 'boss' | 'config' | 'logger'>;

/**
 * Every status change of a MED infraction. Opening blocks the disputed amount (available -> blocked) in the same
 * transaction as the row and `infraction.received`; what available could not cover is the shortfall, blocked from the
 * merchant's next credits (cover). Each later change is one guarded UPDATE with its ledger posting and its
 * `infraction.updated` (and, when ACCEPTED, `infraction.refund_completed`) in one transaction: a repeat or a race lost
 * changes nothing.
 */
export const INFRACTION_TRANSITIONS = {
  defend: { from: ['OPEN'], to: 'UNDER_REVIEW', event: 'infraction.updated' },
  // the payer gets the amount back: the block is consumed, the charge becomes REFUNDED (and, with the event,
  // infraction.refund_completed: REFUND_COMPLETED)
  accept: { from: ['OPEN', 'UNDER_REVIEW'], to: 'ACCEPTED', event: 'infraction.updated' },
  // the block goes back to available
  reject: { from: ['OPEN', 'UNDER_REVIEW'], to: 'REJECTED', event: 'infraction.updated' },
  cancel: { from: ['OPEN', 'UNDER_REVIEW'], to: 'CANCELED', event: 'infraction.updated' },
} as const satisfies Record<string, Transition<InfractionStatus, EventType>>;

// The second event an accepted infraction records, after T.accept's: the payer's money is back.
const REFUND_COMPLETED = 'infraction.refund_completed' satisfies EventType;

export type Outcome = 'accept' | 'reject' | 'cancel';
const T = INFRACTION_TRANSITIONS;
const DEFEND = sql.DEFEND(T.defend);
const DECIDE = {
  accept: sql.TRANSITION('accept', T.accept),
  reject: sql.TRANSITION('reject', T.reject),
  cancel: sql.TRANSITION('cancel', T.cancel),
};

const NOT_FOUND = 'Infração não encontrada';
export const NOT_PAID = 'Apenas cobranças pagas podem receber uma infração';
export const ALREADY_OPEN = 'Esta cobrança já tem uma infração em aberto';
const REFUND_IN_PROGRESS = 'Esta cobrança tem um estorno em andamento';
const NOTHING_TO_DISPUTE = 'Nada a disputar: o valor desta cobrança já foi estornado ou está sendo estornado';
export const DEFENSE_CLOSED = 'A defesa só pode ser enviada enquanto a infração está aberta e dentro do prazo';

const emit = (tx: EntityManager, deps: Deps, r: sql.InfractionRow, type: EventType) =>
  recordEvent(tx, deps.boss, r.merchant_id, type, infractionView(r));

// The merchant's available balance, with the other accounts the posting that follows moves, all locked in code order
// (a posting's accounts are locked in that order too, so the two never wait on each other crosswise).
async function lockedAvailable(tx: EntityManager, merchantId: string, others: string[] = []): Promise<number> {
  const codes = [accounts.available(merchantId), ...others];
  const rows = await ormSql(tx).query<{ code: string; balance: string }>(sql.LOCK_ACCOUNTS, [codes]);
  return Number(rows.find((r) => r.code === codes[0])?.balance ?? 0);
}

// What a charge's refunds took back or are taking back, in the caller's transaction (the charge locked first).
async function refundsOf(tx: EntityManager, chargeId: string) {
  const [r] = await ormSql(tx).query<sql.RefundsOfCharge>(sql.REFUNDS_OF_CHARGE, [chargeId]);
  return { completed: Number(r.completed), processing: Number(r.processing) };
}

/**
 * Opens an infraction on a PAID charge (sandbox route, or the acquirer's list): the row, the block of what available
 * covers, the shortfall, and `infraction.received`, in one transaction. The charge row is locked first, as every refund
 * and infraction path locks it (docs/architecture.md, Lock order). Idempotent by the acquirer's id; one open
 * infraction per charge. It disputes at most what is still paid and not being refunded (the charge's amount less its
 * COMPLETED and PROCESSING refunds), so a MED and a refund never both take the same money from the merchant; the
 * sandbox refuses it while a refund is in progress, the acquirer's (which cannot be refused) opens with the rest, or
 * waits for the next poll when nothing is left.
 */
export async function openInfraction(
  deps: Deps,
  em: EntityManager,
  input: {
    chargeId: string;
    merchantId?: string; // the caller's merchant (sandbox): another merchant's charge is not found
    amount?: number;
    reason: string;
    acquirerId?: string;
    deadlineAt?: Date;
  },
): Promise<InfractionView> {
  if (!isUuid(input.chargeId)) throw new NotFoundError('Cobrança não encontrada');
  const row = await transactional(em, async (tx) => {
    const [c] = await ormSql(tx).query<{ id: string; merchant_id: string; amount: number; status: string }>(
      sql.CHARGE,
      [input.chargeId],
    );
    if (!c || (input.merchantId && c.merchant_id !== input.merchantId))
      throw new NotFoundError('Cobrança não encontrada');
    if (c.status !== 'PAID') throw new BusinessRuleError(NOT_PAID, 'charge_not_paid');
    const refunds = await refundsOf(tx, c.id);
    if (!input.acquirerId && refunds.processing > 0) throw new ConflictError(REFUND_IN_PROGRESS, 'refund_in_progress');
    const disputable = c.amount - refunds.completed - refunds.processing;
    if (disputable <= 0) throw new ConflictError(NOTHING_TO_DISPUTE, 'nothing_to_dispute');
    const amount = Math.min(input.amount ?? c.amount, disputable);
    // the balance is locked before the row is inserted: a row being inserted is no lock anyone else can wait on
    const toBlock = Math.min(amount, Math.max(0, await lockedAvailable(tx, c.merchant_id)));
    const deadline = input.deadlineAt ?? new Date(Date.now() + deps.config.infractionDefenseHours * 3600_000);
    const [r] = await ormSql(tx).query<sql.InfractionRow>(sql.INSERT, [
      newId(),
      c.merchant_id,
      c.id,
      amount,
      input.reason.slice(0, 255),
      deadline,
      toBlock,
      amount - toBlock,
      input.acquirerId ?? null,
    ]);
    if (!r) throw new ConflictError(ALREADY_OPEN, 'infraction_already_open');
    if (toBlock > 0)
      await post(
        tx,
        'infraction.block',
        r.id,
        [
          { account: accounts.available(c.merchant_id), amount: -toBlock, merchantId: c.merchant_id },
          { account: accounts.blocked(c.merchant_id), amount: toBlock, merchantId: c.merchant_id },
        ],
        { infractionId: r.id, chargeId: c.id },
      );
    await emit(tx, deps, r, 'infraction.received');
    return r;
  });
  deps.logger.info({ infraction: row.id, charge: row.charge_id, shortfall: row.shortfall }, 'infraction opened');
  return infractionView(row);
}

/**
 * Blocks what a merchant's available balance now covers of its open infractions' shortfalls (oldest first), in one
 * transaction. Run by the worker every minute and right after payments to a merchant who owes; until then the
 * withdrawal and refund guards already keep the owed amount out of reach.
 */
export async function coverShortfall(deps: Deps, em: EntityManager, merchantId: string): Promise<number> {
  return transactional(em, async (tx) => {
    // infraction rows before ledger accounts (the lock order)
    const owed = await ormSql(tx).query<sql.InfractionRow>(sql.OWED, [merchantId]);
    if (owed.length === 0) return 0;
    let available = await lockedAvailable(tx, merchantId);
    let covered = 0;
    for (const r of owed) {
      const take = Math.min(r.shortfall, available);
      if (take <= 0) break;
      await ormSql(tx).run(sql.COVER, [take, r.id]);
      await post(
        tx,
        'infraction.cover',
        newId(),
        [
          { account: accounts.available(merchantId), amount: -take, merchantId },
          { account: accounts.blocked(merchantId), amount: take, merchantId },
        ],
        { infractionId: r.id, chargeId: r.charge_id },
      );
      available -= take;
      covered += take;
    }
    return covered;
  });
}

export async function coverAll(deps: Deps, em: EntityManager): Promise<number> {
  let total = 0;
  for (const { merchant_id } of await ormSql(em.fork()).query<{ merchant_id: string }>(sql.MERCHANTS_OWED))
    total += await coverShortfall(deps, em.fork(), merchant_id);
  return total;
}

/**
 * POST /v1/infractions/:id/defense: only while OPEN and before the deadline; forwarded to the acquirer first (an
 * acquirer that is down is a 503 and nothing changes), then UNDER_REVIEW with `infraction.updated`.
 */
export async function defend(
  deps: Deps & Pick<AcquirerDeps, 'acquirer'>,
  em: EntityManager,
  merchantId: string,
  id: string,
  text: string,
): Promise<InfractionView> {
  if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
  const [current] = await ormSql(em).query<sql.InfractionRow>(sql.FOR_MERCHANT, [id, merchantId]);
  if (!current) throw new NotFoundError(NOT_FOUND);
  if (current.status !== 'OPEN' || new Date(current.deadline_at) <= new Date())
    throw new BusinessRuleError(DEFENSE_CLOSED, 'defense_closed');
  if (current.acquirer_id) await deps.acquirer.submitDefense(current.acquirer_id, text);
  const row = await transactional(em, async (tx) => {
    const [r] = await ormSql(tx).query<sql.InfractionRow>(DEFEND, [text, id, merchantId]);
    if (!r) throw new BusinessRuleError(DEFENSE_CLOSED, 'defense_closed');
    await emit(tx, deps, r, T.defend.event);
    return r;
  });
  return infractionView(row);
}

/**
 * ACCEPTED, REJECTED or CANCELED (an operator, or the acquirer's word). ACCEPTED: the payer gets the amount back — the
 * block is consumed, what is still owed is taken from available as far as it goes and the rest is the platform's loss
 * (`platform:med-losses`); the charge becomes REFUNDED (`charge.refunded`) and `infraction.refund_completed` is sent.
 * `amount`: what the acquirer decided the payer gets (default: the infraction's), never more than what is still paid
 * and not being refunded (a refund that failed since the opening gave some back). REJECTED and CANCELED give the block
 * back to available. The charge is locked first (the lock order). Returns null when the infraction was already decided.
 */
export async function decide(
  deps: Deps,
  em: EntityManager,
  id: string,
  outcome: Outcome,
  amount?: number,
): Promise<InfractionView | null> {
  if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
  const row = await transactional(em, async (tx) => {
    const [c] = await ormSql(tx).query<{ id: string; amount: number }>(sql.LOCK_CHARGE_OF, [id]);
    if (!c) throw new NotFoundError(NOT_FOUND);
    let [r] = await ormSql(tx).query<sql.InfractionRow>(DECIDE[outcome], [id]);
    if (!r) return null; // decided already
    const m = r.merchant_id;
    if (outcome === 'accept') {
      const refunds = await refundsOf(tx, c.id);
      const take = Math.max(0, Math.min(amount ?? r.amount, c.amount - refunds.completed - refunds.processing));
      if (take !== r.amount) [r] = await ormSql(tx).query<sql.InfractionRow>(sql.SET_AMOUNT, [take, r.id]);
      const fromBlocked = Math.min(r.blocked, take);
      const rest = take - fromBlocked;
      const others = [accounts.blocked(m), accounts.medLosses, accounts.acquirerSettlement];
      const fromAvailable = Math.min(rest, Math.max(0, await lockedAvailable(tx, m, others)));
      await post(
        tx,
        'infraction.refund',
        r.id,
        [
          { account: accounts.blocked(m), amount: -r.blocked, merchantId: m },
          // what of the block the payer does not get goes back to the merchant
          { account: accounts.available(m), amount: r.blocked - fromBlocked - fromAvailable, merchantId: m },
          { account: accounts.medLosses, amount: -(rest - fromAvailable) },
          { account: accounts.acquirerSettlement, amount: take },
        ],
        { infractionId: r.id, chargeId: r.charge_id },
      );
      await markRefunded(deps, tx, r.charge_id);
      await recordEvents(tx, deps.boss, [
        { merchantId: m, type: T.accept.event, data: infractionView(r) },
        { merchantId: m, type: REFUND_COMPLETED, data: infractionView(r) },
      ]);
    } else {
      if (r.blocked > 0)
        await post(
          tx,
          'infraction.release',
          r.id,
          [
            { account: accounts.blocked(m), amount: -r.blocked, merchantId: m },
            { account: accounts.available(m), amount: r.blocked, merchantId: m },
          ],
          { infractionId: r.id, chargeId: r.charge_id },
        );
      await emit(tx, deps, r, T[outcome].event);
    }
    return r;
  });
  if (row) deps.logger.info({ infraction: id, status: row.status }, 'infraction decided');
  return row ? infractionView(row) : null;
}

// One infraction as the acquirer lists it: opened once (by its id), then moved along as the acquirer moves it.
export async function applyAcquirerInfraction(
  deps: Deps,
  em: EntityManager,
  i: AcquirerInfraction,
): Promise<'opened' | 'updated' | 'unchanged' | 'unknown_payment'> {
  let [row] = await ormSql(em.fork()).query<sql.InfractionRow>(sql.BY_ACQUIRER_ID, [i.acquirerId]);
  let result: 'opened' | 'updated' | 'unchanged' = 'unchanged';
  if (!row) {
    const [charge] = await ormSql(em.fork()).query<{ id: string }>(sql.CHARGE_BY_E2E, [i.endToEndId]);
    if (!charge) return 'unknown_payment';
    try {
      await openInfraction(deps, em.fork(), {
        chargeId: charge.id,
        amount: i.amount,
        reason: i.reason,
        acquirerId: i.acquirerId,
        ...(i.deadlineAt ? { deadlineAt: new Date(i.deadlineAt) } : {}),
      });
      result = 'opened';
    } catch (err) {
      if (!(err instanceof ConflictError) && !(err instanceof BusinessRuleError)) throw err;
      deps.logger.warn({ err, acquirerId: i.acquirerId }, 'infraction listed by the acquirer could not be opened');
      return 'unchanged';
    }
    [row] = await ormSql(em.fork()).query<sql.InfractionRow>(sql.BY_ACQUIRER_ID, [i.acquirerId]);
  }
  const outcome: Outcome | null =
    i.status === 'ACCEPTED' ? 'accept' : i.status === 'REJECTED' ? 'reject' : i.status === 'CANCELED' ? 'cancel' : null;
  if (outcome && (await decide(deps, em.fork(), row.id, outcome, i.amount))) result = 'updated';
  return result;
}
