import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { applyRefundResult } from '../src/refunds/refunds.states.ts';
import { decide } from '../src/infractions/infractions.states.ts';
import { Migration20261129090000_statement as StatementMigration } from '../db/migrations/Migration20261129090000_statement.ts';

// A database that had money moving before the statement existed: the migration makes the same lines from its ledger
// (types, amounts, balanceAfter, the resources, a split's charge found by its reference) as the postings write now.
let app: TestApp;
let stopWorker: () => Promise<void>;
test.before(async () => {
  app = await startTestApp();
  stopWorker = await startBackground(app, 'worker');
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) => app.orm.em.fork().execute<T[]>(q, params);

async function run(step: 'up' | 'down') {
  const m = new StatementMigration(app.orm.em.getDriver() as never, app.orm.config);
  await m[step]();
  for (const q of m.getQueries()) await sql(q as string);
}

const LINES = `select merchant_id, n, type, amount, blocked_amount, balance_after, charge_id, withdrawal_id, refund_id,
                      infraction_id
                 from statement_entries
                order by merchant_id, n`;
const HEADS = `select code, statement_count, statement_total
                 from ledger_accounts
                where statement_count > 0
                order by code`;

test('the migration makes the lines of what was posted before it, the same as the postings write', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const [a, b] = [await createMerchant(app, { kyc: 'APPROVED' }), await createMerchant(app, { kyc: 'APPROVED' })];
  const paid = async (body: object) => {
    const c = (await owner.http.post('/v1/charges', { description: 'x', ...body })).body.charge;
    await owner.http.post(`/v1/sandbox/charges/${c.id}/pay`);
    return waitUntil(
      async () => ((await owner.http.get(`/v1/charges/${c.id}`)).body.charge.status === 'PAID' ? c : null),
      15_000,
      'PAID',
    );
  };
  const c1 = await paid({
    amount: 10_000,
    splits: [
      { merchantId: a.merchantId, amount: 3000 },
      { merchantId: b.merchantId, bps: 1500 },
    ],
  });
  const r = (await owner.http.post(`/v1/charges/${c1.id}/refunds`, { amount: 2500, reverseSplits: true })).body.refund;
  await applyRefundResult(app.deps, r.id, { status: 'COMPLETED' });
  const w = await a.http.post('/v1/merchants/me/withdrawals', {
    amount: 500,
    pixKey: 'fail@sandbox.test',
    pixKeyType: 'EMAIL',
  });
  await waitUntil(
    async () =>
      (await a.http.get(`/v1/merchants/me/withdrawals/${w.body.withdrawal.id}`)).body.withdrawal.status === 'FAILED' ||
      null,
    15_000,
    'FAILED',
  );
  const c2 = await paid({ amount: 4000 });
  const i = (await owner.http.post(`/v1/sandbox/charges/${c2.id}/infraction`, {})).body.infraction;
  await decide(app.deps, app.orm.em.fork(), i.id, 'reject');

  const before = await sql(LINES);
  const heads = await sql(HEADS);
  t.true(before.length >= 12, String(before.length));
  t.true(before.some((l) => l.type === 'SPLIT_PAID' && l.charge_id === c1.id));
  await run('down');
  await run('up');
  t.deepEqual(await sql(LINES), before);
  t.deepEqual(await sql(HEADS), heads);
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report));
});
