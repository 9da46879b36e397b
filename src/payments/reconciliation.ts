// Payments the acquirer received but never notified, found and settled.
import type { AcquirerDeps, PaymentNotification } from '../acquirer/acquirer.ts';
import { acceptPayments } from './payments.service.ts';
import * as sql from './payments.sql.ts';
import { ormSql } from '../platform/sql.ts';

// Payments the acquirer received in [from, to) that this service never heard of are settled as if just notified.
export async function reconcilePayments(
  deps: Pick<AcquirerDeps, 'orm' | 'boss' | 'acquirer'>,
  from: Date,
  to: Date,
): Promise<number> {
  const seen: PaymentNotification[] = [];
  for await (const p of deps.acquirer.paymentsBetween(from, to)) seen.push(p);
  if (seen.length === 0) return 0;
  const ids = seen.map((p) => p.endToEndId);
  const known = await ormSql(deps.orm.em.fork()).query<{ end_to_end_id: string }>(sql.KNOWN_PAYMENTS, [ids]);
  const knownIds = new Set(known.map((k) => k.end_to_end_id));
  const missing = seen.filter((p) => !knownIds.has(p.endToEndId));
  await acceptPayments(deps, missing);
  return missing.length;
}
