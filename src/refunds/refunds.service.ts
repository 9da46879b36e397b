import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Services } from '../platform/services.ts';
import { BusinessRuleError, ConflictError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { accounts, InsufficientFundsError, post } from '../ledger/ledger.service.ts';
import { chargeRowView, refundView } from '../charges/charges.view.ts';
import { guardOwed, hasOpenInfraction } from '../infractions/infractions.holds.ts';
import * as sql from './refunds.sql.ts';
import { transactional } from '../platform/transaction.ts';

const REFUND_IN_PROGRESS = 'Já existe um estorno em andamento para esta cobrança';
export const INFRACTION_OPEN = 'Cobrança com infração (MED) em aberto não pode ser estornada';

/**
 * POST /v1/charges/:id/refund: the whole payment goes back to the payer once the acquirer confirms it. In one
 * transaction: the refund PROCESSING, its refund.send job and the hold of its amount on suspense:refunds (refunds.states.ts
 * takes it from there).
 */
export async function requestRefund(
  deps: Pick<Services, 'boss' | 'config'>,
  em: EntityManager,
  merchantId: string,
  id: string,
) {
  if (!isUuid(id)) throw new NotFoundError('Cobrança não encontrada');
  try {
    return await transactional(em, async (tx) => {
      const [c] = await tx.execute<sql.ChargeForRefund[]>(sql.CHARGE_FOR_REFUND, [id, merchantId]);
      if (!c) throw new NotFoundError('Cobrança não encontrada');
      if (c.status !== 'PAID') throw new BusinessRuleError('Apenas cobranças pagas podem ser estornadas');
      if (await hasOpenInfraction(tx, c.id)) throw new ConflictError(INFRACTION_OPEN);
      const paid = c.paid_amount ?? c.amount; // what the payer paid (a due-date charge: the amount due that day)
      const [refund] = await tx.execute<sql.RefundRow[]>(sql.INSERT_REFUND, [
        newId(),
        merchantId,
        c.id,
        null,
        c.end_to_end_id,
        paid,
      ]);
      await enqueue(deps.boss, tx, QUEUES.refundSend, { refundId: refund.id });
      // the ledger last (its rows stay locked only until the commit); refused funds roll everything above back
      await post(tx, 'refund.hold', refund.id, [
        { account: accounts.available(merchantId), amount: -(paid - c.fee), merchantId },
        { account: accounts.platformFees, amount: -c.fee },
        { account: accounts.refundsInProgress, amount: paid },
      ]).catch((err: unknown) => {
        throw err instanceof InsufficientFundsError ? new BusinessRuleError('Saldo insuficiente') : err;
      });
      // what open MED infractions are still owed (not yet blocked) stays out of reach of refunds too
      await guardOwed(tx, merchantId);
      return {
        charge: chargeRowView(c, { publicBaseUrl: deps.config.publicBaseUrl, tracking: true }),
        refund: refundView(refund),
      };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new ConflictError(REFUND_IN_PROGRESS);
    throw err;
  }
}
