// The refunds' use cases: request a refund (with its splits' reversal), read and list them.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { BusinessRuleError, ConflictError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { createOnce } from '../platform/idempotency.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { transactional } from '../platform/transaction.ts';
import { ormSql } from '../platform/sql.ts';
import { InsufficientFundsError, merchantBalance, post } from '../ledger/ledger.service.ts';
import { chargeRowView } from '../charges/charges.view.ts';
import { guardOwed, hasOpenInfraction } from '../infractions/infractions.holds.ts';
import { refundPostings } from './refunds.money.ts';
import { refundFee, refundSplitShares, type SplitShare } from '../money/refund-shares.ts';
import * as sql from './refunds.sql.ts';
import { refundView } from './refunds.view.ts';

const NOT_FOUND = 'Cobrança não encontrada';
const NOT_PAID = 'Apenas cobranças pagas podem ser estornadas';
export const INFRACTION_OPEN = 'Cobrança com infração (MED) em aberto não pode ser estornada';
export const REFUND_WINDOW_DAYS = 90; // the API Pix lets a devolução be asked up to 90 days after the payment
const TOO_LATE = `O prazo para estorno terminou: até ${REFUND_WINDOW_DAYS} dias após o pagamento`;
const overRefundable = (left: number) => `Valor acima do que ainda pode ser estornado desta cobrança: ${left} centavos`;

export type RefundInput = { amount?: number; reason?: string; reverseSplits?: boolean };

const recipientShort = (s: SplitShare) =>
  `Saldo insuficiente do recebedor ${s.merchantId} para devolver sua parte do estorno (${s.amount} centavos)`;

// What each recipient of the charge's splits gives back of this refund (reverseSplits), after what the earlier
// reversing refunds took; read with the charge locked.
async function sharesOf(tx: EntityManager, c: sql.ChargeForRefund, paid: number, amount: number) {
  const rows = await ormSql(tx).query<{ amount: string; split_shares: SplitShare[] }>(sql.SPLITS_REVERSED, [c.id]);
  const before = {
    amount: rows.reduce((sum, r) => sum + Number(r.amount), 0),
    shares: rows.flatMap((r) => r.split_shares),
  };
  const splits = (c.splits ?? []).map((x) => ({ merchantId: x.merchantId, amount: x.amount ?? 0 }));
  return refundSplitShares({ paid, splits }, before, amount);
}

/**
 * Takes a refund's hold from the owner and (reverseSplits) the recipients, in the caller's transaction. Refused funds,
 * or money that open MED infractions are owed, answer 422: `Saldo insuficiente` for the owner, naming each recipient
 * that cannot give its share. The balances are read once the hold's posting has locked every account it moves.
 */
async function hold(
  tx: EntityManager,
  { refundId, chargeId }: { refundId: string; chargeId: string },
  money: Parameters<typeof refundPostings>[1],
) {
  const takers = (money.splits ?? []).filter((x) => x.amount > 0);
  try {
    await post(tx, 'refund.hold', refundId, refundPostings('hold', money), { refundId, chargeId });
  } catch (err) {
    if (!(err instanceof InsufficientFundsError) || takers.length === 0) throw err;
    const short = [];
    for (const x of takers) if ((await merchantBalance(tx, x.merchantId)).available < x.amount) short.push(x);
    if (short.length)
      throw new BusinessRuleError(short.map(recipientShort).join('; '), 'recipient_insufficient_balance');
    throw err;
  }
  // what open MED infractions are still owed (not yet blocked) stays out of reach of refunds too
  await guardOwed(tx, money.merchantId);
  for (const x of takers)
    await guardOwed(tx, x.merchantId).catch((err: unknown) => {
      throw err instanceof InsufficientFundsError
        ? new BusinessRuleError(recipientShort(x), 'recipient_insufficient_balance')
        : err;
    });
}

/**
 * POST /v1/charges/:id/refunds (and /refund, with no body): part or all of what is still refundable goes back to the
 * payer, once the acquirer confirms it. In one transaction, the charge locked first (the lock order): the checks (PAID,
 * within 90 days of the payment, no open infraction, at most what COMPLETED and PROCESSING refunds left), the refund
 * PROCESSING with its share of the fee, its refund.send job and the hold of its amount on suspense:refunds
 * (refunds.states.ts takes it from there). A refused request changes nothing. With `x-idempotency-key`, a repeat
 * creates nothing and answers with the creation's body.
 */
export async function requestRefund(
  deps: Pick<Services, 'boss' | 'config'>,
  em: EntityManager,
  merchantId: string,
  chargeId: string,
  input: RefundInput,
  idempotencyKey?: string,
) {
  const { refund, replayed } = await createRefund(
    deps,
    em,
    { merchantId, chargeId, recurring: false },
    input,
    idempotencyKey,
  );
  return { ...(await creationBody(deps, em, merchantId, refund)), replayed };
}

/**
 * The refund of requestRefund, as its row: of a charge, or (`recurring`) of the RECURRING charges row that carries a
 * recurring charge's money (src/recurring answers with the recurring charge). The same rules and messages.
 */
export async function createRefund(
  deps: Pick<Services, 'boss' | 'config'>,
  em: EntityManager,
  { merchantId, chargeId, recurring }: { merchantId: string; chargeId: string; recurring: boolean },
  input: RefundInput,
  idempotencyKey?: string,
): Promise<{ refund: sql.RefundRow; replayed: boolean }> {
  if (!isUuid(chargeId)) throw new NotFoundError(NOT_FOUND);
  const prior = async () => {
    const [r] = (await ormSql(em.fork()).query<sql.RefundRow>(sql.REFUND_BY_KEY, [merchantId, idempotencyKey])).map(
      sql.refundRow,
    );
    return r ? { ...r, requestHash: r.request_hash } : null;
  };
  const { result, replayed } = await createOnce(
    idempotencyKey,
    { chargeId, ...input },
    {
      find: prior,
      replay: (r) => r,
      create: (requestHash) =>
        transactional(em, async (tx) => {
          const [c] = await ormSql(tx).query<sql.ChargeForRefund>(sql.CHARGE_FOR_REFUND, [
            chargeId,
            merchantId,
            recurring,
          ]);
          if (!c) throw new NotFoundError(NOT_FOUND);
          if (c.status !== 'PAID') throw new BusinessRuleError(NOT_PAID, 'charge_not_paid');
          if (Date.now() > new Date(c.paid_at!).getTime() + REFUND_WINDOW_DAYS * 86400_000)
            throw new BusinessRuleError(TOO_LATE, 'refund_window_expired');
          if (await hasOpenInfraction(tx, c.id)) throw new ConflictError(INFRACTION_OPEN, 'infraction_open');
          const [t] = await ormSql(tx).query<{ amount: string; fee: string }>(sql.REFUNDS_TAKEN, [c.id]);
          const taken = { amount: Number(t.amount), fee: Number(t.fee) };
          const paid = c.paid_amount ?? c.amount; // what the payer paid (a due-date charge: the amount due that day)
          const left = paid - taken.amount;
          const amount = input.amount ?? left;
          if (amount < 1 || amount > left)
            throw new BusinessRuleError(overRefundable(left), 'refund_exceeds_refundable');
          const feeAmount = refundFee({ amount: paid, fee: c.fee }, taken, amount);
          const splits = input.reverseSplits ? await sharesOf(tx, c, paid, amount) : null;
          const [refund] = (
            await ormSql(tx).query<sql.RefundRow>(sql.INSERT_REFUND, [
              newId(),
              merchantId,
              c.id,
              null,
              c.end_to_end_id,
              amount,
              feeAmount,
              input.reason ?? null,
              c.refunded_amount,
              idempotencyKey ?? null,
              requestHash,
              splits && JSON.stringify(splits),
            ])
          ).map(sql.refundRow);
          await enqueue(deps.boss, tx, QUEUES.refundSend, { refundId: refund.id });
          // the ledger last (its rows stay locked only until the commit); refused funds (422) roll everything above back
          await hold(
            tx,
            { refundId: refund.id, chargeId: c.id },
            { amount, feeAmount, merchantId, splits: splits ?? [] },
          );
          return refund;
        }),
    },
  );
  return { refund: result, replayed };
}

/**
 * The body a refund's creation answers (and its replay): the charge as it was then — PAID, refundedAmount what its
 * refunds had completed before — and the refund PROCESSING, whatever happened to either since.
 */
async function creationBody(deps: Pick<Services, 'config'>, em: EntityManager, merchantId: string, r: sql.RefundRow) {
  const [c] = await ormSql(em.fork()).query<sql.ChargeForRefund>(sql.MERCHANT_CHARGE, [r.charge_id, merchantId, false]);
  const charge = { ...c, status: 'PAID' as const, refunded_at: null, refunded_amount: r.refunded_before ?? 0 };
  const refund = { ...r, status: 'PROCESSING' as const, failure_reason: null, completed_at: null, failed_at: null };
  const opts = { publicBaseUrl: deps.config.publicBaseUrl, tracking: true };
  return { charge: chargeRowView(charge, opts), refund: refundView(refund) };
}

// GET /v1/charges/:id/refunds: every refund of the charge, newest first (`recurring`: of a recurring charge's row).
export async function listRefunds(em: EntityManager, merchantId: string, chargeId: string, recurring = false) {
  if (!isUuid(chargeId)) throw new NotFoundError(NOT_FOUND);
  const [c] = await ormSql(em).query<sql.ChargeForRefund>(sql.MERCHANT_CHARGE, [chargeId, merchantId, recurring]);
  if (!c) throw new NotFoundError(NOT_FOUND);
  const rows = await ormSql(em).query<sql.RefundRow>(sql.CHARGE_REFUNDS, [c.id]);
  return { refunds: rows.map(sql.refundRow).map(refundView) };
}

// The latest refund of a charge as the charge shows it (GET /v1/charges/:id; null: none), given to src/charges'
// chargeRoutes by the composition (src/app.ts).
export async function latestRefund(em: EntityManager, chargeId: string) {
  const [refund] = await ormSql(em).query<sql.RefundViewRow>(sql.LATEST_REFUND, [chargeId]);
  return refund ? refundView(refund) : null;
}
