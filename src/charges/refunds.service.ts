import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import type { Deps } from '../deps.ts';
import { BusinessRuleError, NotFoundError } from '../platform/errors.ts';
import { isUuid } from '../platform/base.entity.ts';
import { QUEUES, sendInTx } from '../platform/queue.ts';
import { accounts, InsufficientFundsError, post } from '../ledger/ledger.service.ts';
import { recordEvent } from '../events/events.service.ts';
import { Charge } from './charge.entity.ts';
import { chargeView } from './charge.view.ts';

export type RefundJob = { chargeId: string; endToEndId: string; amount: number };

/**
 * Full refund of a PAID charge. Policy: the payment is reversed whole — the merchant gives back its net amount
 * and the platform its fee — so the payer gets the full amount. Refused (422) when the merchant's available
 * balance cannot cover the net. The charge, the reversal, the charge.refunded event and the acquirer job commit together.
 */
export async function refundCharge(deps: Pick<Deps, 'boss'>, em: EntityManager, merchantId: string, id: string) {
  if (!isUuid(id)) throw new NotFoundError('Cobrança não encontrada');
  return em.transactional(async (tx) => {
    const charge = await tx.findOne(Charge, { id, merchant: merchantId }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['customer'] });
    if (!charge) throw new NotFoundError('Cobrança não encontrada');
    if (charge.status !== 'PAID') throw new BusinessRuleError('Apenas cobranças pagas podem ser estornadas');
    charge.status = 'REFUNDED';
    charge.refundedAt = new Date();
    const view = chargeView(charge, charge.customer ?? null, { tracking: true });
    await recordEvent(tx, deps.boss, merchantId, 'charge.refunded', view);
    await sendInTx(tx, deps.boss, QUEUES.chargeRefund, { chargeId: charge.id, endToEndId: charge.endToEndId!, amount: charge.amount } satisfies RefundJob);
    // the ledger last (its rows stay locked only until the commit); refused funds roll everything above back
    try {
      await post(tx, 'charge.refund', charge.id, [
        { account: accounts.available(merchantId), amount: -(charge.amount - charge.fee), merchantId },
        { account: accounts.platformFees, amount: -charge.fee },
        { account: accounts.acquirerSettlement, amount: charge.amount },
      ]);
    } catch (err) {
      if (err instanceof InsufficientFundsError) throw new BusinessRuleError('Saldo insuficiente');
      throw err;
    }
    return view;
  });
}
