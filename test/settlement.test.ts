import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { waitUntil } from './support/receiver.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { expireCharges } from '../src/charges/charges.states.ts';
import { settlePayments } from '../src/payments/settlement.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { signAcquirerBody, SIGNATURE_HEADER } from '../src/payments/notifications.routes.ts';
import { createLogger } from '../src/platform/logger.ts';
import { main as ops } from '../src/ops.ts';
import { foldCounters } from '../src/platform/counters.ts';
import { CHARGE_PAGE } from '../src/charges/charges.sql.ts';
import type { PaymentNotification } from '../src/acquirer/acquirer.ts';
import type { Logger } from '../src/platform/logger.ts';

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

const COUNTERS = [CHARGE_PAGE.counter];

// One payment settled on its own, as the worker's fallback does.
const settleOne = async (logger: Logger, n: PaymentNotification) =>
  (await settlePayments({ boss: app.boss, config: app.config, logger }, app.orm.em.fork(), [n]))[0];

const sql = (q: string, params: unknown[] = []) => app.orm.em.fork().execute(q, params);

// Polls until done(value); fails the test's promise when it never happens.
async function waitFor<T>(fn: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  return waitUntil(async () => {
    const v = await fn();
    return done(v) ? { v } : null;
  }, ms).then((r) => r.v);
}

async function newCharge(amount: number, extra: object = {}) {
  const m = await createOnboardedMerchant(app);
  const c = (await m.http.post('/v1/charges', { amount, description: 'produto', ...extra })).body.charge;
  return { m, c };
}

// What a real acquirer POSTs: the API Pix `pix` array, signed with the shared secret.
function notify(items: object[], secret = app.config.acquirerWebhookSecret) {
  const body = JSON.stringify({ pix: items });
  return client(app.baseUrl).call('POST', '/v1/acquirer/notifications', body, {
    'content-type': 'application/json',
    [SIGNATURE_HEADER]: signAcquirerBody(secret, body),
  });
}

test('sandbox pay: the charge turns PAID through the worker and the balance grows by amount minus fee', async (t) => {
  const { m, c } = await newCharge(10_000);
  await m.http.post('/v1/webhooks/merchant', { url: 'http://127.0.0.1:9/paid', events: ['charge.paid'] }); // no daemon runs here
  const pay = await m.http.post(`/v1/sandbox/charges/${c.id}/pay`);
  t.is(pay.status, 202);
  t.regex(pay.body.endToEndId, /^E[0-9A-Za-z]{31}$/);
  const paid = await waitFor(
    () => m.http.get(`/v1/charges/${c.id}`),
    (r) => r.body.charge.status === 'PAID',
  );
  t.like(paid.body.charge, { status: 'PAID', endToEndId: pay.body.endToEndId, fee: 99, netAmount: 9901 });
  t.truthy(Date.parse(paid.body.charge.paidAt));
  t.deepEqual((await m.http.get('/v1/merchants/me/balance')).body, { available: 9901, blocked: 0, currency: 'BRL' });

  const [event] = await sql(`select id, type, data from events where merchant_id = ? and type = 'charge.paid'`, [
    m.merchantId,
  ]);
  t.is(event.data.id, c.id);
  t.is(event.data.status, 'PAID');
  t.false('imageBase64' in event.data);
  const deliveries = await sql(
    `select d.url from webhook_deliveries d join pgboss.job j on j.name = 'webhook.deliver' and j.data->>'id' = d.id::text
    where d.event_id = ?`,
    [event.id],
  );
  t.deepEqual(deliveries, [{ url: 'http://127.0.0.1:9/paid' }], 'its delivery and job were written with the payment');
  // paying again is refused: the charge is no longer PENDING
  t.is((await m.http.post(`/v1/sandbox/charges/${c.id}/pay`)).status, 422);
});

test('the merchant fee set by the operator is the split of the payment', async (t) => {
  const m = await createOnboardedMerchant(app);
  const out: string[] = [];
  await ops(['merchant:fee', '--email', m.email, '--bps', '250', '--fixed', '30'], {
    out: (s) => out.push(s),
    err: () => {},
    env: { DATABASE_URL: app.databaseUrl },
  });
  const c = (await m.http.post('/v1/charges', { amount: 1999, description: 'x' })).body.charge;
  t.is(c.fee, 30 + 50); // 1999 * 2.5% = 49.975 -> 50 (half up)
  await m.http.post(`/v1/sandbox/charges/${c.id}/pay`);
  const bal = await waitFor(
    () => m.http.get('/v1/merchants/me/balance'),
    (r) => r.body.available > 0,
  );
  t.is(bal.body.available, 1999 - 80);
});

test('concurrent duplicate notifications credit exactly once', async (t) => {
  const { m, c } = await newCharge(5_000);
  const item = { endToEndId: sandboxEndToEndId(), txid: c.txid, valor: '50.00', horario: new Date().toISOString() };
  const log = createLogger('silent', 'test');
  // the same notification through the HTTP endpoint and straight into settlement, all at once
  const [http, direct] = await Promise.all([
    Promise.all(Array.from({ length: 8 }, () => notify([item]))),
    Promise.all(
      Array.from({ length: 8 }, () =>
        settleOne(log, { txid: c.txid, endToEndId: item.endToEndId, amount: 5000, paidAt: item.horario }),
      ),
    ),
  ]);
  t.true(http.every((r) => r.status === 200));
  t.is(direct.filter((o) => o === 'paid').length <= 1, true);
  await waitFor(
    () =>
      sql(
        `select count(*) as n from pgboss.job where name = 'acquirer.notification' and data->>'txid' = ? and state in ('created','retry','active')`,
        [c.txid],
      ),
    (r) => Number(r[0].n) === 0,
  );
  const credits = await sql(
    `select count(*) as n from ledger_transactions where kind = 'charge.payment' and reference_id = ?`,
    [c.id],
  );
  t.is(Number(credits[0].n), 1);
  const events = await sql(`select count(*) as n from events where merchant_id = ? and type = 'charge.paid'`, [
    m.merchantId,
  ]);
  t.is(Number(events[0].n), 1);
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 5000 - 50);
  // a second payment (another endToEndId) of an already PAID charge changes nothing
  const outcome = await settleOne(log, {
    txid: c.txid,
    endToEndId: sandboxEndToEndId(),
    amount: 5000,
    paidAt: new Date().toISOString(),
  });
  t.is(outcome, 'already_paid');
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 4950);
});

test('a batch settles in one transaction: every outcome reported, each charge credited once, one event each', async (t) => {
  const a = await newCharge(2_000);
  const b = await newCharge(3_000);
  const mismatch = (await a.m.http.post('/v1/charges', { amount: 700, description: 'valor errado' })).body.charge;
  const late = (await a.m.http.post('/v1/charges', { amount: 800, description: 'vencida' })).body.charge;
  await sql(`update charges set expires_at = now() - interval '1 minute' where id = ?`, [late.id]);
  const at = new Date().toISOString();
  const pay = (c: { txid: string; amount: number }, endToEndId = sandboxEndToEndId()) => ({
    txid: c.txid,
    endToEndId,
    amount: c.amount,
    paidAt: at,
  });
  const first = pay(a.c);
  const batch = [
    first,
    pay(b.c),
    { ...first },
    pay(a.c),
    pay({ txid: 'f'.repeat(32), amount: 100 }),
    { ...pay(mismatch), amount: 701 },
    pay(late),
  ];
  const outcomes = await settlePayments(
    { boss: app.boss, config: app.config, logger: createLogger('silent', 't') },
    app.orm.em.fork(),
    batch,
  );
  t.deepEqual(outcomes, ['paid', 'paid', 'duplicate', 'already_paid', 'unknown', 'mismatch', 'late']);
  t.deepEqual((await a.m.http.get('/v1/merchants/me/balance')).body.available, 2_000 - 20);
  t.deepEqual((await b.m.http.get('/v1/merchants/me/balance')).body.available, 3_000 - 30);
  t.like((await a.m.http.get(`/v1/charges/${a.c.id}`)).body.charge, { status: 'PAID', endToEndId: first.endToEndId });
  t.like((await a.m.http.get(`/v1/charges/${mismatch.id}`)).body.charge, { status: 'PENDING' });
  t.like((await a.m.http.get(`/v1/charges/${late.id}`)).body.charge, { status: 'CANCELED' });
  const events = await sql(
    `select data->>'id' as id from events where type = 'charge.paid' and merchant_id in (?, ?) order by 1`,
    [a.m.merchantId, b.m.merchantId],
  );
  t.deepEqual(
    events.map((e) => e.id),
    [a.c.id, b.c.id].sort(),
  );
  t.deepEqual(
    await settlePayments(
      { boss: app.boss, config: app.config, logger: createLogger('silent', 't') },
      app.orm.em.fork(),
      [first],
    ),
    ['duplicate'],
    'a later redelivery changes nothing',
  );
});

test('notifications for one charge in one batch are taken in order: a wrong amount first does not stop the right one', async (t) => {
  const { m, c } = await newCharge(1_200);
  const at = new Date().toISOString();
  const right = { txid: c.txid, endToEndId: sandboxEndToEndId(), amount: 1_200, paidAt: at };
  const outcomes = await settlePayments(
    { boss: app.boss, config: app.config, logger: createLogger('silent', 't') },
    app.orm.em.fork(),
    [{ ...right, endToEndId: sandboxEndToEndId(), amount: 1_100 }, right, { ...right }],
  );
  t.deepEqual(outcomes, ['mismatch', 'paid', 'duplicate']);
  t.like((await m.http.get(`/v1/charges/${c.id}`)).body.charge, { status: 'PAID', endToEndId: right.endToEndId });
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 1_200 - 12);
});

test('a batch the worker cannot settle as a whole is settled one by one: the bad notification fails alone', async (t) => {
  const { m, c } = await newCharge(4_000);
  const other = await newCharge(1_500);
  // an amount that is not an integer breaks the batch's single statement
  await app.boss.insert(QUEUES.acquirerNotification, [
    { data: { txid: c.txid, endToEndId: sandboxEndToEndId(), amount: 4_000, paidAt: new Date().toISOString() } },
    {
      data: {
        txid: other.c.txid,
        endToEndId: sandboxEndToEndId(),
        amount: 'muito' as unknown as number,
        paidAt: new Date().toISOString(),
      },
    },
  ]);
  await waitFor(
    () => m.http.get(`/v1/charges/${c.id}`),
    (r) => r.body.charge.status === 'PAID',
  );
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 4_000 - 40);
  t.like((await other.m.http.get(`/v1/charges/${other.c.id}`)).body.charge, { status: 'PENDING' });
  const stateOfBad = () =>
    sql(`select state from pgboss.job where name = ? and data->>'txid' = ?`, [
      QUEUES.acquirerNotification,
      other.c.txid,
    ]);
  const [bad] = await waitFor(stateOfBad, ([j]) => ['retry', 'failed'].includes(j.state)); // failed after the good one committed
  t.true(['retry', 'failed'].includes(bad.state), `the bad notification's job is ${bad.state}`);
  await sql(`delete from pgboss.job where name = ? and data->>'txid' = ?`, [QUEUES.acquirerNotification, other.c.txid]); // no retries left behind
});

test('notifications must be signed and well formed', async (t) => {
  const { c } = await newCharge(100);
  const item = { endToEndId: sandboxEndToEndId(), txid: c.txid, valor: '1.00', horario: new Date().toISOString() };
  t.is((await notify([item], 'wrong-secret')).status, 401);
  t.is((await client(app.baseUrl).post('/v1/acquirer/notifications', { pix: [item] })).status, 401);
  t.is((await notify([{ ...item, valor: 1 }])).status, 400);
  t.is((await notify([])).status, 400);
});

test('expiry: PENDING past its expiry becomes CANCELED and a late payment never pays it', async (t) => {
  const { m, c } = await newCharge(3_000, { expiresIn: 60 });
  await sql(
    `update charges set expires_at = now() - interval '1 second', created_at = now() - interval '61 seconds' where id = ?`,
    [c.id],
  );
  await expireCharges(app.deps, app.orm.em.fork()); // (a concurrent test's sweep may have expired it first)
  const got = await m.http.get(`/v1/charges/${c.id}`);
  t.is(got.body.charge.status, 'CANCELED');
  const outcome = await settleOne(createLogger('silent', 't'), {
    txid: c.txid,
    endToEndId: sandboxEndToEndId(),
    amount: 3000,
    paidAt: new Date().toISOString(),
  });
  t.is(outcome, 'late');
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 0);
  const events = await sql(`select count(*) as n from events where merchant_id = ? and type like 'charge.%'`, [
    m.merchantId,
  ]);
  t.is(Number(events[0].n), 0);
});

test('a payment after expiry that arrives before the sweeper cancels instead of paying', async (t) => {
  const { m, c } = await newCharge(3_000, { expiresIn: 60 });
  await sql(`update charges set expires_at = now() - interval '5 seconds' where id = ?`, [c.id]);
  const outcome = await settleOne(createLogger('silent', 't'), {
    txid: c.txid,
    endToEndId: sandboxEndToEndId(),
    amount: 3000,
    paidAt: new Date().toISOString(),
  });
  t.is(outcome, 'late');
  t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'CANCELED');
});

test('a payment made within the validity pays the charge even when the expiry sweep canceled it first', async (t) => {
  const { m, c } = await newCharge(3_000, { expiresIn: 60 });
  const paidAt = new Date(Date.now() - 10_000).toISOString(); // the payer paid 10 s ago; the notification was delayed
  await sql(`update charges set expires_at = now() - interval '5 seconds' where id = ?`, [c.id]);
  await expireCharges(app.deps, app.orm.em.fork());
  t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'CANCELED');
  const log = createLogger('silent', 't');
  const e2e = sandboxEndToEndId();
  t.is(await settleOne(log, { txid: c.txid, endToEndId: e2e, amount: 2999, paidAt }), 'mismatch');
  t.is(await settleOne(log, { txid: c.txid, endToEndId: e2e, amount: 3000, paidAt }), 'paid');
  const charge = (await m.http.get(`/v1/charges/${c.id}`)).body.charge;
  t.like(charge, { status: 'PAID', endToEndId: e2e, paidAt, canceledAt: null });
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 3000 - 30);
  const events = await sql(`select type from events where merchant_id = ? and type like 'charge.%'`, [m.merchantId]);
  t.deepEqual(
    events.map((e) => e.type),
    ['charge.paid'],
  );
  t.is(await settleOne(log, { txid: c.txid, endToEndId: e2e, amount: 3000, paidAt }), 'duplicate');
});

test('refund: a PAID charge becomes REFUNDED, the split is reversed and charge.refunded is emitted', async (t) => {
  const { m, c } = await newCharge(20_000);
  t.is((await m.http.post(`/v1/charges/${c.id}/refund`)).status, 422); // still PENDING
  await m.http.post(`/v1/sandbox/charges/${c.id}/pay`);
  await waitFor(
    () => m.http.get(`/v1/charges/${c.id}`),
    (r) => r.body.charge.status === 'PAID',
  );
  const res = await m.http.post(`/v1/charges/${c.id}/refund`);
  t.is(res.status, 202, JSON.stringify(res.body));
  t.like(res.body.charge, { id: c.id, status: 'PAID' }, 'final only when the acquirer confirms it');
  t.like(res.body.refund, { amount: 20_000, status: 'PROCESSING' });
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 0, 'held out of available at once');
  const refunded = await waitFor(
    () => m.http.get(`/v1/charges/${c.id}`),
    (r) => r.body.charge.status === 'REFUNDED',
  );
  t.truthy(Date.parse(refunded.body.charge.refundedAt));
  t.like(refunded.body.charge.refund, { id: res.body.refund.id, status: 'COMPLETED' });
  const events = await sql(`select type from events where merchant_id = ? order by id`, [m.merchantId]);
  t.deepEqual(
    events.map((e) => e.type).filter((x) => x.startsWith('charge.')),
    ['charge.paid', 'charge.refunded'],
  );
  t.is((await m.http.post(`/v1/charges/${c.id}/refund`)).status, 422); // only once
  const fees = await sql(
    `select coalesce(sum(e.amount), 0) as s from ledger_entries e join ledger_transactions x on x.id = e.transaction_id
    join ledger_accounts a on a.id = e.account_id where a.code = 'platform:fees' and x.reference_id = ?`,
    [c.id],
  );
  t.is(Number(fees[0].s), 99 * 2, 'the fee was taken by the payment...');
  const held = await sql(
    `select coalesce(sum(e.amount), 0) as s from ledger_entries e join ledger_transactions x on x.id = e.transaction_id
    join ledger_accounts a on a.id = e.account_id where a.code = 'platform:fees' and x.reference_id = ?`,
    [res.body.refund.id],
  );
  t.is(Number(held[0].s), -99 * 2, '...and given back by the refund');
});

test('refund is refused with 422 when the balance cannot cover it, and changes nothing', async (t) => {
  const { m, c } = await newCharge(10_000);
  await m.http.post(`/v1/sandbox/charges/${c.id}/pay`);
  await waitFor(
    () => m.http.get(`/v1/charges/${c.id}`),
    (r) => r.body.charge.status === 'PAID',
  );
  // the money left the balance meanwhile (as a withdrawal would take it)
  await sql(`update ledger_accounts set balance = 100 where code = ?`, [`merchant:${m.merchantId}:available`]);
  const res = await m.http.post(`/v1/charges/${c.id}/refund`);
  t.deepEqual([res.status, res.body], [422, { code: 'insufficient_balance', message: 'Saldo insuficiente' }]);
  t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'PAID');
  await sql(`update ledger_accounts set balance = 9901 where code = ?`, [`merchant:${m.merchantId}:available`]);
});

test('another merchant cannot pay or refund my charge', async (t) => {
  const { c } = await newCharge(1_000);
  const other = await createOnboardedMerchant(app);
  t.is((await other.http.post(`/v1/sandbox/charges/${c.id}/pay`)).status, 404);
  t.is((await other.http.post(`/v1/charges/${c.id}/refund`)).status, 404);
});

test('the per-status charge counters always equal the charges themselves (one consistent snapshot)', async (t) => {
  const { m, c } = await newCharge(700);
  await m.http.post(`/v1/sandbox/charges/${c.id}/pay`);
  await waitFor(
    () => m.http.get(`/v1/charges/${c.id}`),
    (r) => r.body.charge.status === 'PAID',
  );
  await m.http.post(`/v1/charges/${c.id}/refund`);
  await waitFor(
    () => m.http.get(`/v1/charges/${c.id}`),
    (r) => r.body.charge.status === 'REFUNDED',
  );
  const drift =
    await sql(`select coalesce(a.merchant_id, b.merchant_id) as merchant_id, coalesce(a.status, b.status) as status, a.n as rows, b.n as counted
      from (select merchant_id, status, count(*) as n from charges group by 1, 2) a
      full join (select merchant_id, status, sum(count) as n from charge_counts group by 1, 2 having sum(count) <> 0) b
        on a.merchant_id = b.merchant_id and a.status = b.status
     where a.n is distinct from b.n`);
  t.deepEqual(drift, []);
  t.like((await m.http.get('/v1/charges?status=REFUNDED')).body, { total: 1 });
});

test('folding the counters, even twice at once and during payments, keeps every total and leaves one row per key', async (t) => {
  const m = await createOnboardedMerchant(app);
  const charges = await Promise.all(
    Array.from({ length: 12 }, () => m.http.post('/v1/charges', { amount: 500, description: 'fold' })),
  );
  const rowsOf = async () =>
    (await sql(
      `select status, count(*)::int as n, sum(count)::int as total from charge_counts where merchant_id = ? group by 1 order by 1`,
      [m.merchantId],
    )) as { status: string; n: number; total: number }[];
  t.true((await rowsOf()).find((r) => r.status === 'PENDING')!.n > 1, 'one row per insert before folding');
  // pay half of them while two folds run
  const paid = charges.slice(0, 6).map((r) => m.http.post(`/v1/sandbox/charges/${r.body.charge.id}/pay`));
  await Promise.all([...paid, foldCounters(app.orm.em.fork(), COUNTERS), foldCounters(app.orm.em.fork(), COUNTERS)]);
  await waitFor(
    () => m.http.get('/v1/charges?status=PAID'),
    (r) => r.body.total === 6,
  );
  await foldCounters(app.orm.em.fork(), COUNTERS);
  t.deepEqual(await rowsOf(), [
    { status: 'PAID', n: 1, total: 6 },
    { status: 'PENDING', n: 1, total: 6 },
  ]);
  t.like((await m.http.get('/v1/charges')).body, { total: 12 });
});

test("an idempotent replay answers with the creation's body even after the charge was paid", async (t) => {
  const m = await createOnboardedMerchant(app);
  const keyed = await m.http.post(
    '/v1/charges',
    { amount: 300, description: 'replay' },
    { 'x-idempotency-key': 'r-1' },
  );
  await m.http.post(`/v1/sandbox/charges/${keyed.body.charge.id}/pay`);
  await waitFor(
    () => m.http.get(`/v1/charges/${keyed.body.charge.id}`),
    (r) => r.body.charge.status === 'PAID',
  );
  const replay = await m.http.post(
    '/v1/charges',
    { amount: 300, description: 'replay' },
    { 'x-idempotency-key': 'r-1' },
  );
  t.deepEqual([replay.status, replay.body], [200, keyed.body]);
});
