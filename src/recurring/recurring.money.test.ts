// Tests of a recurring charge's money: the fee, the merchant's credit.
import test from 'ava';
import fc from 'fast-check';
import { accounts } from '../ledger/ledger.service.ts';
import { statementLines } from '../ledger/statement.ts';
import { platformFee } from '../money/money.ts';
import { recurringPaymentTransaction } from './recurring.money.ts';

const M = '019a8f3b-0000-7000-8000-000000000001';

test('any amount and fee terms: the payment posts paid = net + fee, balanced, net never negative, one RECURRING_CHARGE_PAID line (none when the fee is all)', (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2_147_483_647 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 100_000 }),
      (amount, bps, fixed) => {
        const fee = platformFee(amount, { bps, fixed });
        const tx = recurringPaymentTransaction({ chargeId: M, owner: M, paid: amount, fee });
        const of = (account: string) => tx.postings.find((p) => p.account === account)!.amount;
        const net = of(accounts.available(M));
        t.is(
          tx.postings.reduce((s, p) => s + p.amount, 0),
          0,
        );
        t.is(-of(accounts.acquirerSettlement), amount);
        t.is(net + of(accounts.platformFees), amount);
        t.true(net >= 0 && fee >= 0 && fee <= amount);
        // a payment the fee takes whole moves none of the merchant's money: no line
        const line = { tx: 0, merchantId: M, amount: net, blocked: 0, type: 'RECURRING_CHARGE_PAID' };
        t.deepEqual(statementLines([tx]), net === 0 ? [] : [line]);
      },
    ),
  );
});
