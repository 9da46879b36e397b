import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { sandboxEndToEndId } from '../acquirer/sandbox.ts';
import { BusinessRuleError } from '../platform/errors.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { findCharge } from '../charges/charges.service.ts';

// Every payment notification, from a real acquirer or the sandbox, enters here and is settled by the worker.
export async function acceptPayments(
  { boss }: Pick<Services, 'boss'>,
  notifications: PaymentNotification[],
): Promise<void> {
  for (const n of notifications)
    await enqueue(boss, null, QUEUES.acquirerNotification, n, { singletonKey: n.endToEndId });
}

// Sandbox: the payer pays a PENDING charge; the same notification a real acquirer sends, through the same queue.
export async function simulatePayment(deps: Pick<Services, 'boss'>, em: EntityManager, merchantId: string, id: string) {
  const charge = await findCharge(em, merchantId, id);
  if (charge.status !== 'PENDING') throw new BusinessRuleError('Cobrança não está pendente');
  const endToEndId = sandboxEndToEndId();
  await acceptPayments(deps, [
    { txid: charge.txid, endToEndId, amount: charge.amount, paidAt: new Date().toISOString() },
  ]);
  return { endToEndId };
}
