import test from 'ava';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { accounts, InsufficientFundsError, post } from '../src/ledger/ledger.service.ts';
import { newId } from '../src/platform/base.entity.ts';
import { fund, sql } from './withdrawals.helpers.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const credit = (merchantId: string, amount: number) => [
  { account: accounts.available(merchantId), amount, merchantId },
  { account: accounts.acquirerSettlement, amount: -amount },
];
const debit = (merchantId: string, amount: number) => [
  { account: accounts.available(merchantId), amount: -amount, merchantId },
  { account: accounts.acquirerSettlement, amount },
];

// A credit holds the merchant's account locked (uncommitted) while a debit that only the credit covers starts: the
// debit's statement snapshot predates the credit, yet once it gets the lock it must see the credited balance.
async function debitWhileCreditCommits(
  t: { is: (a: unknown, b: unknown) => void },
  start: number,
  credited: number,
  debited: number,
) {
  const m = await createMerchant(app);
  await fund(app, m.merchantId, start);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let posted!: () => void;
  const creditPosted = new Promise<void>((r) => {
    posted = r;
  });
  const creditTx = app.orm.em.fork().transactional(async (em) => {
    await post(em, 'charge.payment', newId(), credit(m.merchantId, credited));
    posted();
    await gate; // the account row stays locked until this commits
  });
  await creditPosted;
  const debitTx = app.orm.em
    .fork()
    .transactional((em) => post(em, 'withdrawal', newId(), debit(m.merchantId, debited)));
  // the debit is now waiting for the row lock (its snapshot taken before the credit's commit)
  const waiting = async () =>
    (
      await sql<{ n: string }>(
        app,
        `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%ledger_transactions%'`,
      )
    )[0].n;
  for (let i = 0; i < 100 && Number(await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.is(Number(await waiting()), 1);
  release();
  await creditTx;
  const outcome = await debitTx.then(
    () => 'posted',
    (err: unknown) => (err instanceof InsufficientFundsError ? 'refused' : String(err)),
  );
  const [{ balance }] = await sql<{ balance: string }>(app, 'select balance from ledger_accounts where code = ?', [
    accounts.available(m.merchantId),
  ]);
  return { outcome, balance: Number(balance) };
}

test.serial('a debit that waited on a concurrent credit sees the credited balance', async (t) => {
  t.deepEqual(await debitWhileCreditCommits(t, 100, 1_000, 800), { outcome: 'posted', balance: 300 });
});

test.serial(
  'a debit larger than the balance even after the concurrent credit is refused and changes nothing',
  async (t) => {
    t.deepEqual(await debitWhileCreditCommits(t, 100, 1_000, 1_101), { outcome: 'refused', balance: 1_100 });
  },
);
