import test from 'ava';
import { foldCounters } from '../src/platform/counters.ts';
import { WITHDRAWAL_PAGE } from '../src/withdrawals/withdrawals.sql.ts';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { fund, ops, sql, waitFor } from './withdrawals.helpers.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ DB_POOL_MAX: '30' });
});
test.after.always(async () => {
  await app?.close();
});

const PATH = '/v1/merchants/me/withdrawals';
const body = (amount: number, pixKey = 'someone@example.com') => ({ amount, pixKey, pixKeyType: 'EMAIL' });
const available = async (m: Awaited<ReturnType<typeof createMerchant>>) =>
  (await m.http.get('/v1/merchants/me/balance')).body.available as number;

// The burst tests run one after another, and ledger:verify runs last, over everything they posted.
test.serial(
  '20 withdrawals at once against a balance that covers only some: no overdraft, every centavo accounted for',
  async (t) => {
    const m = await createMerchant(app);
    await fund(app, m.merchantId, 10_000);
    const amounts = Array.from({ length: 20 }, (_, i) => 700 + i * 37); // 700..1403: the sum is far above 10 000
    const replies = await Promise.all(amounts.map((a) => m.http.post(PATH, body(a))));
    const ok = replies.filter((r) => r.status === 201);
    const refused = replies.filter((r) => r.status === 422);
    t.is(ok.length + refused.length, 20, `unexpected statuses: ${replies.map((r) => r.status)}`);
    t.true(ok.length >= 7 && ok.length < 20, `${ok.length} succeeded`); // any 7 of the amounts fit; all 20 cannot
    for (const r of refused) t.deepEqual(r.body, { code: 'insufficient_balance', message: 'Saldo insuficiente' });
    const withdrawn = ok.reduce((s, r) => s + r.body.withdrawal.amount, 0);
    const balance = await available(m);
    t.true(balance >= 0);
    t.is(balance, 10_000 - withdrawn);
    // the balance only fell during the burst, so each refused amount exceeded what is left now
    t.true(refused.every((r) => amounts[replies.indexOf(r)] > balance));
    const rows = await sql<{ n: string; s: string }>(
      app,
      'select count(*) as n, coalesce(sum(amount), 0) as s from withdrawals where merchant_id = ?',
      [m.merchantId],
    );
    t.deepEqual([Number(rows[0].n), Number(rows[0].s)], [ok.length, withdrawn]);
    t.is((await m.http.get(PATH)).body.total, ok.length);
  },
);

test.serial(
  'bursts from several merchants at once, with a worker settling (some fail and revert) meanwhile',
  async (t) => {
    const stopWorker = await startBackground(app, 'worker');
    try {
      const merchants = await Promise.all([1, 2, 3].map(() => createMerchant(app)));
      for (const m of merchants) await fund(app, m.merchantId, 5_000);
      const replies = await Promise.all(
        merchants.flatMap((m) =>
          Array.from({ length: 15 }, (_, i) =>
            m.http
              .post(PATH, body(400 + i * 10, i % 3 === 0 ? 'fail@sandbox.test' : 'someone@example.com'))
              .then((r) => ({ m, r })),
          ),
        ),
      );
      t.true(
        replies.every(({ r }) => r.status === 201 || r.status === 422),
        replies.map(({ r }) => r.status).join(),
      );
      for (const m of merchants) {
        await waitFor(
          'all settled',
          async () =>
            (
              await sql(app, `select 1 from withdrawals where merchant_id = ? and status = 'PROCESSING'`, [
                m.merchantId,
              ])
            ).length === 0,
        );
        const [{ s }] = await sql<{ s: string }>(
          app,
          `select coalesce(sum(amount), 0) as s from withdrawals where merchant_id = ? and status = 'COMPLETED'`,
          [m.merchantId],
        );
        t.is(await available(m), 5_000 - Number(s), 'failed ones were credited back, completed ones were not');
      }
    } finally {
      await stopWorker();
    }
  },
);

test.serial('10 concurrent requests with one x-idempotency-key create exactly one withdrawal', async (t) => {
  const m = await createMerchant(app);
  await fund(app, m.merchantId, 5_000);
  const replies = await Promise.all(
    Array.from({ length: 10 }, () => m.http.post(PATH, body(1_000), { 'x-idempotency-key': 'same-key' })),
  );
  t.deepEqual(replies.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  t.is(new Set(replies.map((r) => r.body.withdrawal.id)).size, 1);
  t.true(replies.filter((r) => r.status === 200).every((r) => r.headers.get('idempotent-replayed') === 'true'));
  t.is((await sql(app, 'select id from withdrawals where merchant_id = ?', [m.merchantId])).length, 1);
  t.is(await available(m), 4_000);
});

test.serial('ledger:verify is clean after the bursts', async (t) => {
  const res = await ops(app, 'ledger:verify');
  t.is(res.code, 0, res.err);
  t.like(res.json, { ok: true, problemCount: 0, problems: [] });
  t.true(res.json.transactions > 50);
  const [{ n }] = await sql<{ n: string }>(app, 'select count(*) as n from withdrawals');
  const [{ total }] = await sql<{ total: string }>(app, 'select sum(count) as total from withdrawal_counts');
  t.is(Number(total), Number(n), 'the listing counter matches the rows after concurrent inserts');
  t.true((await foldCounters(app.orm.em.fork(), [WITHDRAWAL_PAGE.counter])) > 0);
  const [after] = await sql<{ total: string; rows: string; merchants: string }>(
    app,
    'select sum(count) as total, count(*) as rows, count(distinct merchant_id) as merchants from withdrawal_counts',
  );
  t.deepEqual(
    [Number(after.total), after.rows],
    [Number(n), after.merchants],
    'folded: same total, one row per merchant',
  );
});
