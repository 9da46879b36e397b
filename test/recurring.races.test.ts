// Truly concurrent requests on one recurring charge or one mandate: each race has one outcome, never a 5xx, and the
// money stays exact (ledger:verify clean, the statement sums to the balance).
import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { waitUntil } from './support/receiver.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { settlePayments } from '../src/payments/settlement.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { activateRecurringCharge, attemptRejected } from '../src/recurring/recurring-charges.states.ts';
import { approvedMandate, company, recurringCharge, type Company } from './support/recurring.ts';

type Json = Record<string, any>;
const now = new Date();
let app: TestApp;
let stopWorker: () => Promise<void>;
test.before(async () => {
  app = await startTestApp({}, { clock: () => now });
  stopWorker = await startBackground(app, 'worker');
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});
test.afterEach.always(async (t) => {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
});

const today = () => saoPauloDate(now);
const sql = <T = Json>(q: string, params: unknown[] = []) => app.orm.em.fork().execute<T[]>(q, params);
const get = async (m: Company, id: string) => (await m.http.get(`/v1/recurring-charges/${id}`)).body.recurringCharge;
const statementSum = async (m: Company) =>
  ((await m.http.get('/v1/merchants/me/statement?limit=100')).body.entries as Json[]).reduce((s, e) => s + e.amount, 0);
const balanceOf = async (m: Company) => (await m.http.get('/v1/merchants/me/balance')).body;

test('two creations for one cycle at once: one 201, the other 422 (never 5xx), one live charge and one hidden row', async (t) => {
  const m = await company(app);
  for (let round = 0; round < 6; round++) {
    const md = await approvedMandate(m, today());
    // today + 3 and today + 5 fall in cycle 0 of a weekly mandate from tomorrow
    const answers = await Promise.all(
      [3, 5, 4].map((d) =>
        m.http.post(`/v1/mandates/${md.id}/charges`, { dueDate: plusDays(today(), d), amount: 9990 }),
      ),
    );
    t.deepEqual(answers.map((a) => a.status).sort(), [201, 422, 422], JSON.stringify(answers.map((a) => a.body)));
    for (const a of answers.filter((x) => x.status === 422))
      t.is(a.body.message, 'Já existe uma cobrança recorrente ativa neste ciclo da autorização');
    const rows = await sql(
      `select r.status, c.type from recurring_charges r join charges c on c.id = r.charge_id where r.mandate_id = ?`,
      [md.id],
    );
    t.deepEqual(rows, [{ status: 'ACTIVE', type: 'RECURRING' }]);
  }
});

test("a creation racing the mandate's cancellation: either 201 and the cancellation cancels it, or 422 (not APPROVED); no live charge is left", async (t) => {
  const m = await company(app);
  const seen = new Set<string>();
  for (let round = 0; round < 8; round++) {
    const md = await approvedMandate(m, today());
    const [created, canceled] = await Promise.all([
      m.http.post(`/v1/mandates/${md.id}/charges`, { dueDate: plusDays(today(), 3), amount: 9990 }),
      m.http.patch(`/v1/mandates/${md.id}`, { status: 'CANCELED' }),
    ]);
    t.is(canceled.status, 200);
    t.true([201, 422].includes(created.status), JSON.stringify(created.body));
    seen.add(String(created.status));
    if (created.status === 422)
      t.is(created.body.message, 'A autorização precisa estar APPROVED para receber cobranças');
    else t.is((await get(m, created.body.recurringCharge.id)).status, 'CANCELED');
    const live = await sql(
      `select r.id from recurring_charges r join charges c on c.id = r.charge_id where r.mandate_id = ? and (r.status <> 'CANCELED' or c.status <> 'CANCELED')`,
      [md.id],
    );
    t.deepEqual(live, []);
  }
  t.log('outcomes seen', [...seen]);
});

test("a retry racing the attempt's rejection: 202 after it or 409 before it, never both, never 5xx", async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  for (let round = 0; round < 6; round++) {
    const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3 + 7 * (round % 2)), amount: 9990 });
    const retryDate = plusDays(rc.dueDate, 1);
    const [rejected, retried] = await Promise.all([
      m.http.post(`/v1/sandbox/recurring-charges/${rc.id}/attempt`, { outcome: 'REJECTED' }),
      m.http.post(`/v1/recurring-charges/${rc.id}/retries`, { date: retryDate }),
    ]);
    t.is(rejected.status, 200);
    t.true([202, 409].includes(retried.status), JSON.stringify(retried.body));
    const now = await get(m, rc.id);
    t.is(now.status, 'ACTIVE');
    if (retried.status === 202) {
      t.deepEqual(
        now.attempts.map((a: Json) => a.status),
        ['REJECTED', 'SCHEDULED'],
      );
      t.is(now.retriesLeft, 2);
    } else {
      t.deepEqual(
        now.attempts.map((a: Json) => a.status),
        ['REJECTED'],
      );
      t.is(now.retriesLeft, 3);
    }
    // free the cycle for the next round
    await sql(`update recurring_charges set status = 'FAILED' where id = ?`, [rc.id]);
  }
});

test('a payment racing a final rejection: either PAID (the rejection changes nothing) or FAILED (the payment is returned); the money exact', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today(), { retryPolicy: 'NONE' });
  let paid = 0;
  for (let round = 0; round < 6; round++) {
    const dueDate = plusDays(today(), 3 + 7 * Math.min(round, 1));
    const rc = await recurringCharge(m, md.id, { dueDate, amount: 9990 });
    const [outcomes, after] = await Promise.all([
      settlePayments(app.deps, app.orm.em.fork(), [
        { txid: rc.txid, endToEndId: sandboxEndToEndId(), amount: 9990, paidAt: new Date().toISOString() },
      ]),
      attemptRejected(app.deps, app.orm.em.fork(), { txid: rc.txid, date: dueDate, failureCode: 'AM04' }),
    ]);
    const final = await get(m, rc.id);
    if (outcomes[0] === 'paid') {
      paid++;
      t.is(final.status, 'PAID');
      t.is(after!.status === 'PAID' || after!.status === 'ACTIVE', true);
      await m.http.post(`/v1/recurring-charges/${rc.id}/refunds`, {});
    } else {
      t.is(outcomes[0], 'late');
      t.is(final.status, 'FAILED');
    }
    if (final.status === 'PAID') await sql(`update recurring_charges set status = 'FAILED' where id = ?`, [rc.id]); // free the cycle
  }
  await waitUntil(async () => ((await balanceOf(m)).available === 0 ? true : null), 15_000);
  t.is(await statementSum(m), (await balanceOf(m)).available + (await balanceOf(m)).blocked);
  t.log('paid', paid, 'of 6');
});

test("activation (the PSP's ATIVA) twice at once: ACTIVE once, idempotent; an unknown txid is null", async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  await sql(`update recurring_charges set status = 'CREATED' where id = ?`, [rc.id]);
  const both = await Promise.all([
    activateRecurringCharge(app.deps, app.orm.em.fork(), { txid: rc.txid }),
    activateRecurringCharge(app.deps, app.orm.em.fork(), { txid: rc.txid }),
  ]);
  t.deepEqual(
    both.map((r) => r!.status),
    ['ACTIVE', 'ACTIVE'],
  );
  t.is((await get(m, rc.id)).status, 'ACTIVE');
  t.is(await activateRecurringCharge(app.deps, app.orm.em.fork(), { txid: 'x'.repeat(32) }), null);
});
