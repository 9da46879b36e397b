// The payments' entry: accept notified payments (queued for settlement) and simulate one in the sandbox.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { sandboxEndToEndId } from '../acquirer/sandbox.ts';
import { BusinessRuleError } from '../platform/errors.ts';
import { enqueueJoined, QUEUES } from '../platform/queue.ts';
import { findCharge } from '../charges/charges.get.ts';
import { dueTermsOfRow } from '../charges/charges.view.ts';
import { addDays, endOfSaoPauloDay, saoPauloDate } from '../charges/due-date.ts';
import { amountDueOn } from '../money/due-date-amounts.ts';

// Every payment notification, from a real acquirer or the sandbox, enters here and is settled by the worker.
export async function acceptPayments(
  { boss }: Pick<Services, 'boss'>,
  notifications: PaymentNotification[],
): Promise<void> {
  // joined with the other requests' notifications in flight: one insert and one commit for all of them
  await enqueueJoined(
    boss,
    QUEUES.acquirerNotification,
    notifications.map((n) => ({ data: n, singletonKey: n.endToEndId })),
  );
}

const HALF_DAY_MS = 12 * 3_600_000;

/**
 * Sandbox: the payer pays a PENDING charge on `date` (a São Paulo date, default today) the amount due that day, as a
 * PSP reports it: the same notification a real acquirer sends (with the components of a due-date charge's amount),
 * through the same queue. Today's payment is made now; another day's at noon of that day.
 */
export async function simulatePayment(
  deps: Pick<Services, 'boss' | 'clock' | 'config'>,
  em: EntityManager,
  merchantId: string,
  id: string,
  date?: string,
) {
  const charge = await findCharge(em, merchantId, id);
  if (charge.status !== 'PENDING') throw new BusinessRuleError('Cobrança não está pendente', 'charge_not_pending');
  const now = deps.clock();
  const day = date ?? saoPauloDate(now);
  if (day < saoPauloDate(new Date(charge.created_at)))
    throw new BusinessRuleError('date é anterior à criação da cobrança', 'payment_before_charge');
  const paidAt = day === saoPauloDate(now) ? now : new Date(endOfSaoPauloDay(day).getTime() + 1000 - HALF_DAY_MS);
  const terms = dueTermsOfRow(charge);
  // past the last valid day nothing is due any more: a late payer pays the last day's amount (it will be returned)
  const lastDay = terms && addDays(terms.dueDate, charge.validity_after_due_days ?? 0);
  const { final: amount, ...components } = terms
    ? amountDueOn(terms, lastDay && day > lastDay ? lastDay : day)
    : { final: charge.amount, original: charge.amount, rebate: 0, discount: 0, fine: 0, interest: 0 };
  const endToEndId = sandboxEndToEndId(paidAt);
  await acceptPayments(deps, [
    {
      txid: charge.txid,
      endToEndId,
      amount,
      paidAt: paidAt.toISOString(),
      ...(terms ? { components } : {}),
      simulated: true,
    },
  ]);
  return { endToEndId, amount, paidAt: paidAt.toISOString() };
}
