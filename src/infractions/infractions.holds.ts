// What MED holds of a merchant's money, asked by every movement of it (refunds, withdrawals, credits).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { accounts, InsufficientFundsError } from '../ledger/ledger.service.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './infractions.sql.ts';

/**
 * What MED holds of a merchant's money, asked in the caller's transaction by whatever moves it: a refund may not take a
 * charge under an open infraction, and no debit (refund, withdrawal) may leave the merchant's available balance below
 * what its open infractions are still owed; a credit (a payment) to a merchant who owes is blocked right after (cover).
 */

// An infraction OPEN or UNDER_REVIEW on the charge.
export async function hasOpenInfraction(tx: EntityManager, chargeId: string): Promise<boolean> {
  return (await ormSql(tx).query(sql.OPEN_ON_CHARGE, [chargeId])).length > 0;
}

// After a debit (its ledger row locked until the commit): the balance left must still cover the open infractions'
// shortfall.
export async function guardOwed(tx: EntityManager, merchantId: string): Promise<void> {
  const [row] = await ormSql(tx).query<{ balance: string; owed: string }>(sql.AVAILABLE_AND_OWED, [
    accounts.available(merchantId),
    merchantId,
  ]);
  if (row && Number(row.owed) > 0 && Number(row.balance) < Number(row.owed)) throw new InsufficientFundsError();
}

// After credits to these merchants: those who owe open infractions get their new credit blocked (infractions.cover),
// by a job committed with the credit.
export async function coverAfterCredit(
  deps: Pick<Services, 'boss'>,
  tx: EntityManager,
  merchantIds: readonly string[],
): Promise<void> {
  if (merchantIds.length === 0) return;
  const rows = await ormSql(tx).query<{ merchant_id: string }>(sql.MERCHANTS_OWING, [[...new Set(merchantIds)]]);
  for (const { merchant_id } of rows)
    await enqueue(deps.boss, tx, QUEUES.infractionsCover, { merchantId: merchant_id });
}
