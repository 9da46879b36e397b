import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { waitUntil } from './support/receiver.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { approvedMandate, company, recurringCharge, type Company } from './recurring.helpers.ts';

type Json = Record<string, any>;
// The clock every rule reads (São Paulo "today"); tests that need another day move it and put it back.
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
const eventsOf = (merchantId: string, type: string) =>
  sql<{ type: string; data: Json }>(`select type, data from events where merchant_id = ? and type = ? order by id`, [
    merchantId,
    type,
  ]);
const get = async (m: Company, id: string) => (await m.http.get(`/v1/recurring-charges/${id}`)).body.recurringCharge;
async function waitFor<T>(fn: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  return waitUntil(async () => {
    const v = await fn();
    return done(v) ? { v } : null;
  }, ms).then((r) => r.v);
}
const hiddenOf = async (id: string) =>
  (await sql(`select c.* from charges c join recurring_charges r on r.charge_id = c.id where r.id = ?`, [id]))[0];

test('creation: 201 ACTIVE (sandbox) with its DUE_DATE attempt SCHEDULED, and the hidden charges row carrying its money', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const res = await m.http.post(`/v1/mandates/${md.id}/charges`, {
    dueDate: plusDays(today(), 3),
    amount: 9990,
    description: 'Semana 1',
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  const rc = res.body.recurringCharge;
  t.like(rc, {
    mandateId: md.id,
    recId: md.recId,
    cycle: 0,
    dueDate: plusDays(today(), 3),
    amount: 9990,
    description: 'Semana 1',
    status: 'ACTIVE',
    retriesLeft: 3,
    paidAt: null,
    paidAmount: null,
    fee: null,
    refundedAmount: 0,
  });
  t.regex(rc.txid, /^[a-zA-Z0-9]{26,35}$/);
  t.deepEqual(rc.attempts, [
    {
      date: plusDays(today(), 3),
      kind: 'DUE_DATE',
      status: 'SCHEDULED',
      failureCode: null,
      endToEndId: null,
      at: rc.attempts[0].at,
    },
  ]);
  const h = await hiddenOf(rc.id);
  t.like(h, {
    type: 'RECURRING',
    status: 'PENDING',
    txid: rc.txid,
    amount: 9990,
    description: 'Semana 1',
    qr_code: '',
  });
  t.true(h.fee > 0);
  t.deepEqual((await m.http.get(`/v1/recurring-charges/${rc.id}`)).body, { recurringCharge: rc });
});

test('PAID: the settlement pays the hidden row, the recurring charge PAID with recurring_charge.paid (no charge.paid), RECURRING_CHARGE_PAID in the statement', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  const res = await m.http.post(`/v1/sandbox/recurring-charges/${rc.id}/attempt`, { outcome: 'PAID' });
  t.is(res.status, 202);
  t.regex(res.body.endToEndId, /^[a-zA-Z0-9]{32}$/);
  const paid = await waitFor(
    () => get(m, rc.id),
    (r) => r.status === 'PAID',
  );
  const h = await hiddenOf(rc.id);
  t.like(paid, { status: 'PAID', paidAmount: 9990, fee: h.fee, retriesLeft: 3 });
  t.is(paid.paidAt, new Date(h.paid_at).toISOString());
  t.like(paid.attempts[0], { status: 'PAID', endToEndId: res.body.endToEndId, failureCode: null });
  t.is(h.status, 'PAID');
  const events = await eventsOf(m.merchantId, 'recurring_charge.paid');
  t.is(events.length, 1);
  t.deepEqual(events[0].data, paid);
  t.is((await eventsOf(m.merchantId, 'charge.paid')).length, 0);
  const balance = (await m.http.get('/v1/merchants/me/balance')).body;
  t.is(balance.available, 9990 - h.fee);
  const st = (await m.http.get('/v1/merchants/me/statement')).body;
  t.like(st.entries[0], {
    type: 'RECURRING_CHARGE_PAID',
    amount: 9990 - h.fee,
    balanceAfter: 9990 - h.fee,
    chargeId: null,
    recurringChargeId: rc.id,
  });
  const [tx] = await sql(`select kind from ledger_transactions where reference_id = ?`, [h.id]);
  t.is(tx.kind, 'recurring_charge.payment');
  // no SCHEDULED attempt any more
  const again = await m.http.post(`/v1/sandbox/recurring-charges/${rc.id}/attempt`, { outcome: 'PAID' });
  t.is(again.status, 404);
  t.is(again.body.message, 'Nenhuma tentativa agendada (SCHEDULED) nesta cobrança recorrente');
});
