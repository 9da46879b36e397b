// Settlement's core, in the caller's transaction: a batch of confirmed payments pays the charges they match (the pay
// transition of src/charges, PAY in settle.sql.ts), what each payment of a due-date charge must be, why a payment paid
// nothing, and the paid charges' events and ledger transactions (payment-money.ts). settlement.ts runs it.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import type { PaymentNotification } from '../acquirer/acquirer.ts';
import { ormSql } from '../platform/sql.ts';
import { postMany, type LedgerTransaction } from '../ledger/ledger.service.ts';
import { platformFee } from '../money/money.ts';
import { recordEvents } from '../webhooks/outbox.ts';
import { CHARGE_TRANSITIONS, expireOne } from '../charges/charges.states.ts';
import type { MerchantChargeRow } from '../charges/charge-row.ts';
import { chargeRowView } from '../charges/charges.view.ts';
import { saoPauloDate } from '../charges/due-date.ts';
import { amountDueOn, type Components } from '../money/due-date-amounts.ts';
import { asInputs, resolveSplits, type ChargeSplit } from '../money/splits.ts';
import * as sql from './settle.sql.ts';
import { paymentTransactions } from './payment-money.ts';

const T = CHARGE_TRANSITIONS;
const PAY = sql.PAY(T.pay);

// What a payment did: paid its charge, was a redelivery of one that did, or paid nothing (and why).
export type PayOutcome = 'paid' | 'duplicate' | 'late' | 'already_paid' | 'unknown' | 'mismatch';

// The RECURRING rows a settlement paid, handed to src/recurring in the same transaction (recurringChargesPaid): it
// marks their recurring charges PAID with their events and returns their ledger transactions, posted with the rest.
export type RecurringPaid = (tx: EntityManager, rows: MerchantChargeRow[]) => Promise<LedgerTransaction[]>;

// What a payment of a charge with a due date must be: the amount due on its day (São Paulo), made of these parts.
type DueExpectation = { matches: boolean; fee: number | null; components: Components; splits: ChargeSplit[] | null };

/**
 * The expectation for each payment of a due-date charge (null: an immediate charge, or no charge), from the terms read
 * in the settlement's transaction (they never change after creation). The amount due is that of the payment's day;
 * when the acquirer reported the payment's components (API Pix componentesValor), they must be ours too: a payer's PSP
 * that computed another rebate, discount, fine or interest paid by another rule, even when the total happens to agree.
 */
async function dueExpectations(tx: EntityManager, batch: PaymentNotification[]): Promise<(DueExpectation | null)[]> {
  const txids = [...new Set(batch.flatMap((n) => (n.txid === null ? [] : [n.txid])))];
  if (txids.length === 0) return batch.map(() => null);
  const rows = await ormSql(tx).query<sql.DueTermsRow>(sql.DUE_TERMS, [txids]);
  const terms = new Map(rows.map((r) => [r.txid, r]));
  return batch.map((n) => {
    const t = n.txid === null ? undefined : terms.get(n.txid);
    if (!t) return null;
    const { amount: original, due_date: dueDate, rebate, discount, fine, interest } = t;
    const day = saoPauloDate(new Date(n.paidAt)); // settlement's time: always a valid one (payments.worker)
    const due = amountDueOn({ original, dueDate, rebate, discount, fine, interest }, day);
    const told = n.components;
    const agrees =
      !told || (['original', 'rebate', 'discount', 'fine', 'interest'] as const).every((k) => told[k] === due[k]);
    const matches = n.amount === due.final && agrees;
    // the fee of what would pay the charge (a payment that does not is returned whole), and its splits of the net
    const fee = matches ? platformFee(n.amount, { bps: t.fee_bps, fixed: t.fee_fixed }) : null;
    const splits = fee !== null && t.splits ? resolveSplits(n.amount - fee, asInputs(t.splits)) : null;
    return { matches, fee, components: due, splits };
  });
}

/**
 * pay, in the caller's transaction: each charge PAID, its charge.paid event (with its deliveries) and the ledger split
 * (acquirer -> merchant net + platform fee). Duplicate notifications serialise on the row and find it PAID, so nothing is
 * credited twice. A batch costs the statements of one payment and locks each ledger account once. Notifications for
 * the same charge within a batch are taken in order, one per round, so the first that qualifies pays. A charge with a
 * due date is paid only by the amount due on the payment's day, its fee computed on that amount (and its bps splits on
 * the net). Each split's recipient is credited from the owner's net in the same postMany, which locks every account
 * once, in code order, whoever's it is. Returns each notification's outcome and the merchants credited (owners and
 * recipients). A RECURRING row (a recurring charge's money) has no charge.paid: `recurring` (src/recurring) marks its
 * recurring charge PAID, after the charges were locked and before the ledger (the lock order), and gives its ledger
 * transactions (kind recurring_charge.payment), posted in the same postMany.
 */
export async function payCharges(
  deps: Pick<Services, 'boss' | 'config'>,
  tx: EntityManager,
  batch: PaymentNotification[],
  recurring: RecurringPaid,
): Promise<{ outcomes: PayOutcome[]; credited: string[] }> {
  const outcomes: PayOutcome[] = new Array(batch.length);
  const expected = await dueExpectations(tx, batch);
  const paid: MerchantChargeRow[] = [];
  let pending = batch.map((n, i) => ({ n, i }));
  while (pending.length) {
    const txids = new Set<string | null>();
    const round = pending.filter(({ n }) => n.txid === null || (!txids.has(n.txid) && txids.add(n.txid)));
    pending = pending.filter((p) => !round.includes(p));
    const ns = round.map(({ n }) => n);
    const due = round.map(({ i }) => expected[i]);
    const rows = await ormSql(tx).query<MerchantChargeRow>(PAY, [
      ns.map((n) => n.txid),
      ns.map((n) => n.endToEndId),
      ns.map((n) => n.amount),
      ns.map((n) => n.paidAt),
      due.map((d) => (d ? String(d.matches) : null)),
      due.map((d) => d?.fee ?? null),
      due.map((d) => (d ? JSON.stringify(d.components) : null)),
      due.map((d) => (d?.splits ? JSON.stringify(d.splits) : null)),
    ]);
    const paidBy = new Map(rows.map((r) => [r.txid, r.end_to_end_id]));
    for (const { n, i } of round) {
      outcomes[i] =
        n.txid !== null && paidBy.get(n.txid) === n.endToEndId ? 'paid' : await whyNotPaid(tx, n, expected[i]);
    }
    paid.push(...rows);
  }
  const data = (r: MerchantChargeRow) => chargeRowView(r, { publicBaseUrl: deps.config.publicBaseUrl, tracking: true });
  const charges = paid.filter((r) => r.type !== 'RECURRING');
  await recordEvents(
    tx,
    deps.boss,
    charges.map((r) => ({ merchantId: r.merchant_id, type: T.pay.event, data: data(r) })),
  );
  const recurringTxs = await recurring(
    tx,
    paid.filter((r) => r.type === 'RECURRING'),
  );
  // the ledger last: its account rows stay locked only until the commit that follows. The payer's money is what the
  // payment brought (paid_amount: the amount, or a due-date charge's amount due that day); the owner's net then goes
  // to each split's recipient, one transaction per recipient (the owner's statement shows each).
  await postMany(tx, [
    ...charges.flatMap((r) =>
      paymentTransactions({
        chargeId: r.id,
        owner: r.merchant_id,
        paid: r.paid_amount ?? r.amount,
        fee: r.fee,
        splits: r.splits ?? [],
      }),
    ),
    ...recurringTxs,
  ]);
  const recipients = paid.flatMap((r) => (r.splits ?? []).map((x) => x.merchantId));
  return { outcomes, credited: [...paid.map((r) => r.merchant_id), ...recipients] };
}

// Why a payment paid nothing; a payment dated after the expiry of a still-PENDING charge expires it.
async function whyNotPaid(tx: EntityManager, n: PaymentNotification, due: DueExpectation | null): Promise<PayOutcome> {
  if (n.txid === null) return 'unknown';
  const [c] = await ormSql(tx).query<sql.ChargeForPayment>(sql.CHARGE_FOR_PAYMENT, [n.txid]);
  if (!c) return 'unknown';
  if (c.end_to_end_id === n.endToEndId) return 'duplicate';
  if (c.status === 'PAID' || c.status === 'REFUNDED') return 'already_paid';
  const paidAt = new Date(n.paidAt).getTime();
  const expired = paidAt > new Date(c.expires_at).getTime();
  if (c.status === 'PENDING' && expired) {
    await expireOne(tx, n.txid);
    return 'late';
  }
  // a RECURRING row CANCELED went with its recurring charge (failed, canceled, expired): nothing pays it any more
  const payable =
    !expired &&
    (c.status === 'PENDING' ||
      (c.status === 'CANCELED' && c.type !== 'RECURRING' && paidAt <= new Date(c.canceled_at!).getTime()));
  if (!payable) return 'late';
  // a due-date charge: not the amount due on the payment's day, or not made of the same parts
  const matches = c.type === 'DUE_DATE' ? due?.matches === true : c.amount === n.amount;
  return matches ? 'unknown' : 'mismatch';
}
