// A paid charge's ledger transactions (payment-money.ts): the split's reference, and no centavo created or lost.
import test from 'ava';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { resolveSplits } from '../money/splits.ts';
import { paymentTransactions, splitReference } from './payment-money.ts';
import { platformFee } from '../money/money.ts';
import { accounts } from '../ledger/ledger.service.ts';
import { splitList } from '../../test/support/split-lists.ts';

const OWNER = '019ac1d0-0000-7000-8000-000000000000';

test('the ledger reference of a split is a stable UUID v8 per charge and position', (t) => {
  const id = randomUUID();
  t.is(splitReference(id, 0), splitReference(id, 0));
  t.not(splitReference(id, 0), splitReference(id, 1));
  t.regex(splitReference(id, 3), /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('property: a payment with splits creates and loses no centavo; each party gets exactly its part', (t) => {
  const payment = fc
    .record({
      paid: fc.integer({ min: 1, max: 2_147_483_647 }),
      bps: fc.integer({ min: 0, max: 10_000 }),
      fixed: fc.integer({ min: 0, max: 100_000 }),
    })
    .chain(({ paid, bps, fixed }) => {
      const fee = platformFee(paid, { bps, fixed });
      return fc.record({ paid: fc.constant(paid), fee: fc.constant(fee), splits: splitList(paid - fee) });
    });
  fc.assert(
    fc.property(payment, ({ paid, fee, splits }) => {
      const net = paid - fee;
      const resolved = resolveSplits(net, splits);
      const txs = paymentTransactions({ chargeId: randomUUID(), owner: OWNER, paid, fee, splits: resolved });
      const by = new Map<string, number>();
      for (const tx of txs) {
        if (tx.postings.reduce((s, p) => s + p.amount, 0) !== 0) return false; // each balanced
        if (new Set(tx.postings.map((p) => p.account)).size !== tx.postings.length) return false;
        for (const p of tx.postings) by.set(p.account, (by.get(p.account) ?? 0) + p.amount);
      }
      const recipientsTotal = resolved.reduce((s, x) => s + x.amount!, 0);
      return (
        by.get(accounts.acquirerSettlement) === -paid &&
        by.get(accounts.platformFees) === fee &&
        by.get(accounts.available(OWNER)) === net - recipientsTotal &&
        net - recipientsTotal >= 0 &&
        resolved.every((x) => (by.get(accounts.available(x.merchantId)) ?? 0) === x.amount)
      );
    }),
    { numRuns: 1000 },
  );
  t.pass();
});
