import test from 'ava';
import { spawnSync } from 'node:child_process';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { accounts } from '../src/ledger/ledger.service.ts';
import { fund, ops, sql } from './withdrawals.helpers.ts';

// Each test corrupts the books on purpose, checks the report, then repairs them: serial, over one database.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

async function merchantWithMoney() {
  const m = await createMerchant(app);
  await fund(app, m.merchantId, 5_000);
  const res = await m.http.post('/v1/merchants/me/withdrawals', {
    amount: 1_200,
    pixKey: 'someone@example.com',
    pixKeyType: 'EMAIL',
  });
  if (res.status !== 201) throw new Error(`withdrawal: ${res.status} ${JSON.stringify(res.body)}`);
  return { account: accounts.available(m.merchantId), withdrawalId: res.body.withdrawal.id as string };
}

async function expectClean(t: { is: (a: unknown, b: unknown, m?: string) => void }) {
  const res = await ops(app, 'ledger:verify');
  t.is(res.code, 0, res.out + res.err);
  t.is(res.json.ok, true);
}

test.serial('clean books: ok, counts, exit 0', async (t) => {
  await merchantWithMoney();
  const res = await ops(app, 'ledger:verify');
  t.is(res.code, 0);
  // the merchant's account and the platform's five (created by migrations)
  t.deepEqual(res.json, { ok: true, transactions: 2, accounts: 6, entries: 4, problemCount: 0, problems: [] });
});

test.serial('a balance that drifted from its entries is reported, with exit 1 and the JSON report', async (t) => {
  const { account } = await merchantWithMoney();
  await sql(app, 'update ledger_accounts set balance = balance + 1 where code = ?', [account]);
  const res = await ops(app, 'ledger:verify');
  t.is(res.code, 1);
  t.regex(res.err, /ledger:verify: 3 ledger problem\(s\) found/);
  t.false(res.json.ok);
  const merchantId = account.split(':')[1];
  t.deepEqual(res.json.problems, [
    { type: 'balance_mismatch', account, balance: 3_801, entriesSum: 3_800 },
    { type: 'books_not_zero', sum: 1 },
    // the statement still sums to what the entries say, no longer to the balance
    {
      type: 'statement_mismatch',
      merchantId,
      lines: 2,
      linesSum: 3_800,
      lastBalanceAfter: 3_800,
      headCount: 2,
      headTotal: 3_800,
      balances: 3_801,
    },
  ]);
  await sql(app, 'update ledger_accounts set balance = balance - 1 where code = ?', [account]);
  await expectClean(t);
});

test.serial('an entry that unbalances its transaction is reported', async (t) => {
  const { account, withdrawalId } = await merchantWithMoney();
  const [tx] = await sql<{ id: string }>(
    app,
    `select id from ledger_transactions where kind = 'withdrawal' and reference_id = ?`,
    [withdrawalId],
  );
  const [entry] = await sql<{ id: string }>(
    app,
    `insert into ledger_entries (id, created_at, updated_at, transaction_id, account_id, amount)
    select gen_random_uuid(), now(), now(), ?, id, 7 from ledger_accounts where code = ? returning id`,
    [tx.id, account],
  );
  const res = await ops(app, 'ledger:verify');
  t.is(res.code, 1);
  t.like(
    res.json.problems.find((p: { type: string }) => p.type === 'unbalanced_transaction'),
    { transactionId: tx.id, kind: 'withdrawal', sum: 7 },
  );
  t.like(
    res.json.problems.find((p: { type: string }) => p.type === 'balance_mismatch'),
    { account, balance: 3_800, entriesSum: 3_807 },
  );
  await sql(app, 'delete from ledger_entries where id = ?', [entry.id]);
  await expectClean(t);
});

test.serial('a merchant account below zero is reported', async (t) => {
  const { account } = await merchantWithMoney();
  // the check constraint guards accounts linked to a merchant; an orphaned merchant account could still go negative
  const [{ merchant_id }] = await sql<{ merchant_id: string }>(
    app,
    'select merchant_id from ledger_accounts where code = ?',
    [account],
  );
  await sql(app, 'update ledger_accounts set merchant_id = null, balance = -5 where code = ?', [account]);
  const res = await ops(app, 'ledger:verify');
  t.is(res.code, 1);
  t.deepEqual(
    res.json.problems.filter((p: { type: string }) => p.type === 'negative_merchant_balance'),
    [{ type: 'negative_merchant_balance', account, balance: -5 }],
  );
  await sql(app, 'update ledger_accounts set merchant_id = ?, balance = 3800 where code = ?', [merchant_id, account]);
  await expectClean(t);
});

test.serial('a statement line whose amount or balanceAfter drifted, or that went missing, is reported', async (t) => {
  const { account, withdrawalId } = await merchantWithMoney();
  const merchantId = account.split(':')[1];
  await sql(app, 'update statement_entries set balance_after = balance_after + 1 where withdrawal_id = ?', [
    withdrawalId,
  ]);
  let res = await ops(app, 'ledger:verify');
  t.is(res.code, 1);
  t.deepEqual(
    res.json.problems.map((p: { type: string }) => p.type),
    ['statement_mismatch', 'statement_balance_after_broken'],
  );
  t.like(res.json.problems[1], { merchantId, n: 2 });
  await sql(app, 'update statement_entries set balance_after = balance_after - 1 where withdrawal_id = ?', [
    withdrawalId,
  ]);
  await expectClean(t);
  const [line] = await sql(app, 'delete from statement_entries where withdrawal_id = ? returning *', [withdrawalId]);
  res = await ops(app, 'ledger:verify');
  t.like(res.json.problems[0], { type: 'statement_mismatch', merchantId, lines: 1, linesSum: 5_000, headCount: 2 });
  await sql(app, `insert into statement_entries select * from json_populate_record(null::statement_entries, ?::json)`, [
    JSON.stringify(line),
  ]);
  await expectClean(t);
});

test.serial('npm run ops -- ledger:verify: the real CLI process exits 1 on a problem', async (t) => {
  const { account } = await merchantWithMoney();
  const run = () =>
    spawnSync(process.execPath, ['scripts/ops.ts', 'ledger:verify'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: app.databaseUrl },
    });
  const clean = run();
  t.is(clean.status, 0, clean.stderr);
  t.true(JSON.parse(clean.stdout).ok);
  await sql(app, 'update ledger_accounts set balance = balance - 10 where code = ?', [account]);
  const broken = run();
  t.is(broken.status, 1);
  t.false(JSON.parse(broken.stdout).ok);
  t.regex(broken.stderr, /ledger problem/);
});
