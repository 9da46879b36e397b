import test from 'ava';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { waitUntil } from './support/receiver.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { settlePayments } from '../src/payments/settlement.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { decide } from '../src/infractions/infractions.states.ts';
import { expireCharges } from '../src/charges/charges.states.ts';
import { createRecurringCharge } from '../src/recurring/recurring-charges.service.ts';
import {
  activateRecurringCharge,
  cancelRecurringCharge,
  retryRecurringCharge,
} from '../src/recurring/recurring-charges.states.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { platformFee } from '../src/money/money.ts';
import { approvedMandate, company, mandateBody, recurringCharge, type Company } from './support/recurring.ts';

type Json = Record<string, any>;
// The clock every rule reads (São Paulo "today"); tests that need another day move it and put it back.
let now = new Date();
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

// Runs `fn` with the clock `days` São Paulo days ahead (serial tests only: the clock is every test's).
async function daysLater<T>(days: number, fn: () => Promise<T>): Promise<T> {
  const saved = now;
  now = new Date(saved.getTime() + days * 86_400_000);
  try {
    return await fn();
  } finally {
    now = saved;
  }
}

const rejected = (m: Company, id: string, failureCode?: string) =>
  m.http.post(`/v1/sandbox/recurring-charges/${id}/attempt`, {
    outcome: 'REJECTED',
    ...(failureCode ? { failureCode } : {}),
  });

test("creation rules: each a 422 naming the rule, nothing stored; 404 for an unknown or another merchant's mandate; 400s", async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today(), { endDate: plusDays(today(), 6) });
  const created = (await m.http.post('/v1/mandates', mandateBody(today()))).body.mandate; // CREATED, not approved
  const stored = async () =>
    Number((await sql(`select count(*) as n from recurring_charges where merchant_id = ?`, [m.merchantId]))[0].n);
  const hidden = async () =>
    Number((await sql(`select count(*) as n from charges where merchant_id = ?`, [m.merchantId]))[0].n);
  const cases: [string, Json, string][] = [
    [
      created.id,
      { dueDate: plusDays(today(), 3), amount: 9990 },
      'A autorização precisa estar APPROVED para receber cobranças',
    ],
    [md.id, { dueDate: plusDays(today(), 1), amount: 9990 }, 'dueDate deve estar entre hoje + 2 e hoje + 10 dias'],
    [md.id, { dueDate: plusDays(today(), 11), amount: 9990 }, 'dueDate deve estar entre hoje + 2 e hoje + 10 dias'],
    [
      md.id,
      { dueDate: plusDays(today(), 7), amount: 9990 },
      'dueDate deve estar entre startDate e endDate da autorização',
    ],
    [
      md.id,
      { dueDate: plusDays(today(), 3), amount: 9991 },
      'amount deve ser o valor fixo da autorização (9990 centavos)',
    ],
  ];
  for (const [id, body, message] of cases) {
    const res = await m.http.post(`/v1/mandates/${id}/charges`, body);
    t.is(res.status, 422, message);
    t.is(res.body.message, message);
  }
  t.is(await stored(), 0);
  t.is(await hidden(), 0);
  // startDate: before it
  const later = await approvedMandate(m, today(), { startDate: plusDays(today(), 5) });
  const early = await m.http.post(`/v1/mandates/${later.id}/charges`, { dueDate: plusDays(today(), 3), amount: 9990 });
  t.is(early.body.message, 'dueDate deve estar entre startDate e endDate da autorização');
  // one live charge per cycle (WEEKLY from tomorrow: today + 3 and today + 5 are both cycle 0; today + 8 is cycle 1)
  await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  const same = await m.http.post(`/v1/mandates/${md.id}/charges`, { dueDate: plusDays(today(), 5), amount: 9990 });
  t.is(same.status, 422);
  t.is(same.body.message, 'Já existe uma cobrança recorrente ativa neste ciclo da autorização');
  t.is(await stored(), 1);
  t.is(await hidden(), 1);
  // 404s
  const other = await company(app);
  t.is(
    (await other.http.post(`/v1/mandates/${md.id}/charges`, { dueDate: plusDays(today(), 3), amount: 9990 })).body
      .message,
    'Autorização não encontrada',
  );
  t.is(
    (await m.http.post(`/v1/mandates/${randomUUID()}/charges`, { dueDate: plusDays(today(), 3), amount: 9990 })).status,
    404,
  );
  t.is((await m.http.post(`/v1/mandates/nope/charges`, { dueDate: plusDays(today(), 3), amount: 9990 })).status, 404);
  // 400s
  const bad = await m.http.post(`/v1/mandates/${md.id}/charges`, {
    dueDate: '2026-02-30',
    amount: '10',
    description: 'x'.repeat(141),
  });
  t.is(bad.status, 400);
  t.deepEqual(
    bad.body.errors.map((e: Json) => e.field),
    ['dueDate', 'amount', 'description'],
  );
});

test('a variable mandate takes any amount; retriesLeft 0 without retries; the cycle frees up once its charge FAILED', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today(), { amount: null, minAmount: 500, retryPolicy: 'NONE' }, 20000);
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 12345 });
  t.like(rc, { amount: 12345, retriesLeft: 0, description: null, status: 'ACTIVE' });
  const res = await rejected(m, rc.id);
  t.is(res.status, 200);
  t.like(res.body.recurringCharge, { status: 'FAILED' });
  t.like(res.body.recurringCharge.attempts[0], { status: 'REJECTED', failureCode: 'AM04' });
  t.is((await hiddenOf(rc.id)).status, 'CANCELED');
  t.deepEqual(
    (await eventsOf(m.merchantId, 'recurring_charge.failed')).map((e) => e.data),
    [res.body.recurringCharge],
  );
  t.is((await eventsOf(m.merchantId, 'recurring_charge.attempt_failed')).length, 0);
  const again = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 4), amount: 500 });
  t.is(again.cycle, 0);
});

test('idempotency: a repeat answers 200 with the creation, another body 409, nothing created twice', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const key = randomUUID();
  const body = { dueDate: plusDays(today(), 3), amount: 9990 };
  const first = await m.http.post(`/v1/mandates/${md.id}/charges`, body, { 'x-idempotency-key': key });
  t.is(first.status, 201);
  const [a, b] = await Promise.all([
    m.http.post(`/v1/mandates/${md.id}/charges`, body, { 'x-idempotency-key': key }),
    m.http.post(`/v1/mandates/${md.id}/charges`, body, { 'x-idempotency-key': key }),
  ]);
  for (const r of [a, b]) {
    t.is(r.status, 200);
    t.is(r.headers.get('idempotent-replayed'), 'true');
    t.deepEqual(r.body, first.body);
  }
  const conflict = await m.http.post(
    `/v1/mandates/${md.id}/charges`,
    { ...body, description: 'outra' },
    { 'x-idempotency-key': key },
  );
  t.is(conflict.status, 409);
  t.is(Number((await sql(`select count(*) as n from recurring_charges where mandate_id = ?`, [md.id]))[0].n), 1);
});

test('the hidden charges row is never a charge: not listed, not counted, 404 on GET /v1/charges/:id, /pay/:id and /pix/qr/:txid', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  const c = (await m.http.post('/v1/charges', { amount: 100, description: 'avulsa' })).body.charge;
  const h = await hiddenOf(rc.id);
  const list = (await m.http.get('/v1/charges')).body;
  t.is(list.total, 1);
  t.deepEqual(
    list.charges.map((x: Json) => x.id),
    [c.id],
  );
  t.is((await m.http.get('/v1/charges?status=PENDING')).body.total, 1);
  t.is((await m.http.get(`/v1/charges/${h.id}`)).status, 404);
  t.is((await m.http.get(`/v1/charges/${h.id}/refunds`)).status, 404);
  t.is((await m.http.post(`/v1/charges/${h.id}/refunds`, {})).status, 404);
  t.is((await m.http.post(`/v1/sandbox/charges/${h.id}/pay`, {})).status, 404);
  t.is((await fetch(`${app.baseUrl}/pay/${h.id}`)).status, 404);
  t.is((await fetch(`${app.baseUrl}/pay/${h.id}/status`)).status, 404);
  t.is((await fetch(`${app.baseUrl}/pix/qr/${h.txid}`)).status, 404);
  // the expiry sweep leaves it to its recurring charge, even past its expiry
  await sql(`update charges set expires_at = now() - interval '1 minute' where id = ?`, [h.id]);
  await expireCharges(app.deps, app.orm.em.fork());
  t.is((await hiddenOf(rc.id)).status, 'PENDING');
  await sql(`update charges set expires_at = ? where id = ?`, [h.expires_at, h.id]);
});

test('attempts with retries: REJECTED (default AM04) leaves it ACTIVE with recurring_charge.attempt_failed; a retry SCHEDULED (202); a final code fails it at once', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const due = plusDays(today(), 3);
  const rc = await recurringCharge(m, md.id, { dueDate: due, amount: 9990 });
  const r1 = await rejected(m, rc.id);
  t.is(r1.status, 200);
  t.like(r1.body.recurringCharge, { status: 'ACTIVE', retriesLeft: 3 });
  t.like(r1.body.recurringCharge.attempts[0], { status: 'REJECTED', failureCode: 'AM04' });
  t.deepEqual(
    (await eventsOf(m.merchantId, 'recurring_charge.attempt_failed')).map((e) => e.data),
    [r1.body.recurringCharge],
  );
  t.is((await rejected(m, rc.id)).status, 404, 'no SCHEDULED attempt');
  const retry = await m.http.post(`/v1/recurring-charges/${rc.id}/retries`, { date: plusDays(due, 1) });
  t.is(retry.status, 202);
  t.like(retry.body.recurringCharge, { status: 'ACTIVE', retriesLeft: 2 });
  t.like(retry.body.recurringCharge.attempts[1], { date: plusDays(due, 1), kind: 'RETRY', status: 'SCHEDULED' });
  // 409 while one is SCHEDULED
  const busy = await m.http.post(`/v1/recurring-charges/${rc.id}/retries`, { date: plusDays(due, 2) });
  t.is(busy.status, 409);
  t.is(busy.body.message, 'Já há uma tentativa agendada (SCHEDULED) para esta cobrança recorrente');
  const r2 = await rejected(m, rc.id, 'AC05');
  t.like(r2.body.recurringCharge, { status: 'FAILED', retriesLeft: 2 });
  t.like(r2.body.recurringCharge.attempts[1], { status: 'REJECTED', failureCode: 'AC05' });
  t.is((await hiddenOf(rc.id)).status, 'CANCELED');
  t.is((await eventsOf(m.merchantId, 'recurring_charge.failed')).length, 1);
  // a late payment of a FAILED charge pays nothing and is returned
  const h = await hiddenOf(rc.id);
  const [outcome] = await settlePayments(app.deps, app.orm.em.fork(), [
    { txid: h.txid, endToEndId: sandboxEndToEndId(), amount: 9990, paidAt: new Date().toISOString() },
  ]);
  t.is(outcome, 'late');
  t.is((await get(m, rc.id)).status, 'FAILED');
});

test('retries: every rule a 422 naming it (policy, state, window, same day, at most three), then FAILED when none is left', async (t) => {
  const m = await company(app);
  const due = plusDays(today(), 3);
  const none = await approvedMandate(m, today(), { retryPolicy: 'NONE' });
  const noRetries = await recurringCharge(m, none.id, { dueDate: due, amount: 9990 });
  const retry = (id: string, date: string) => m.http.post(`/v1/recurring-charges/${id}/retries`, { date });
  t.is(
    (await retry(noRetries.id, plusDays(due, 1))).body.message,
    'Novas tentativas exigem uma autorização com retryPolicy THREE_IN_SEVEN_DAYS',
  );
  const md = await approvedMandate(m, today());
  const rc = await recurringCharge(m, md.id, { dueDate: due, amount: 9990 });
  const first = await retry(rc.id, plusDays(due, 1));
  t.is(first.status, 409, "the due date's attempt is SCHEDULED");
  await rejected(m, rc.id);
  t.is((await retry(rc.id, due)).body.message, 'date deve estar entre dueDate + 1 e dueDate + 7');
  t.is((await retry(rc.id, plusDays(due, 8))).body.message, 'date deve estar entre dueDate + 1 e dueDate + 7');
  t.is((await retry(rc.id, 'amanha')).status, 400);
  for (const [k, day] of [1, 2, 3].entries()) {
    const ok = await retry(rc.id, plusDays(due, day));
    t.is(ok.status, 202);
    t.is(ok.body.recurringCharge.retriesLeft, 2 - k);
    const r = await rejected(m, rc.id, 'AM04');
    t.is(r.body.recurringCharge.status, k < 2 ? 'ACTIVE' : 'FAILED');
    if (k === 0) t.is((await retry(rc.id, plusDays(due, 1))).body.message, 'Já houve uma tentativa nesta data');
  }
  t.is(
    (await retry(rc.id, plusDays(due, 5))).body.message,
    'Nova tentativa só para cobrança ACTIVE com a última tentativa REJECTED',
  );
  t.is((await eventsOf(m.merchantId, 'recurring_charge.attempt_failed')).length, 3);
  t.is((await eventsOf(m.merchantId, 'recurring_charge.failed')).length, 1);
  t.is((await retry(randomUUID(), due)).status, 404);
});

test.serial('retries: date >= tomorrow (the clock past the due date); the max of three retries', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const due = plusDays(today(), 3);
  const rc = await recurringCharge(m, md.id, { dueDate: due, amount: 9990 });
  await rejected(m, rc.id);
  await daysLater(5, async () => {
    const r = await m.http.post(`/v1/recurring-charges/${rc.id}/retries`, { date: plusDays(due, 2) });
    t.is(r.body.message, 'date deve ser a partir de amanhã');
    t.is((await m.http.post(`/v1/recurring-charges/${rc.id}/retries`, { date: plusDays(due, 3) })).status, 202);
  });
  // no retry left: a retries_left of 0 with its last attempt REJECTED (as after three rejected retries)
  await rejected(m, rc.id);
  await sql(`update recurring_charges set retries_left = 0 where id = ?`, [rc.id]);
  const max = await m.http.post(`/v1/recurring-charges/${rc.id}/retries`, { date: plusDays(due, 6) });
  t.is(max.body.message, 'No máximo 3 novas tentativas por cobrança recorrente');
});

test("PAID above the payer's maximum: REJECTED with AM02, FAILED at once whatever the policy", async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today(), { amount: null, minAmount: 1000 }, 5000);
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 5001 });
  const res = await m.http.post(`/v1/sandbox/recurring-charges/${rc.id}/attempt`, { outcome: 'PAID' });
  t.is(res.status, 200);
  t.like(res.body.recurringCharge, { status: 'FAILED' });
  t.like(res.body.recurringCharge.attempts[0], { status: 'REJECTED', failureCode: 'AM02' });
  for (const code of ['MD01', 'AG12']) {
    const other = await recurringCharge(m, md.id, {
      dueDate: plusDays(today(), 3 + (code === 'MD01' ? 0 : 1)),
      amount: 100,
    });
    t.is((await rejected(m, other.id, code)).body.recurringCharge.status, 'FAILED', code);
  }
  t.is((await m.http.post(`/v1/sandbox/recurring-charges/${rc.id}/attempt`, { outcome: 'MAYBE' })).status, 400);
  t.is(
    (await m.http.post(`/v1/sandbox/recurring-charges/${rc.id}/attempt`, { outcome: 'REJECTED', failureCode: 'x' }))
      .status,
    400,
  );
  t.is(
    (await m.http.post(`/v1/sandbox/recurring-charges/${randomUUID()}/attempt`, { outcome: 'PAID' })).body.message,
    'Cobrança recorrente não encontrada',
  );
});

test('PATCH CANCELED before the due date: attempt CANCELED, hidden row CANCELED, recurring_charge.canceled; other changes refused', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  t.is((await m.http.patch(`/v1/recurring-charges/${rc.id}`, { status: 'PAID' })).status, 400);
  const res = await m.http.patch(`/v1/recurring-charges/${rc.id}`, { status: 'CANCELED' });
  t.is(res.status, 200);
  t.like(res.body.recurringCharge, { status: 'CANCELED' });
  t.like(res.body.recurringCharge.attempts[0], { status: 'CANCELED' });
  t.is((await hiddenOf(rc.id)).status, 'CANCELED');
  t.deepEqual(
    (await eventsOf(m.merchantId, 'recurring_charge.canceled')).map((e) => e.data),
    [res.body.recurringCharge],
  );
  const again = await m.http.patch(`/v1/recurring-charges/${rc.id}`, { status: 'CANCELED' });
  t.is(again.status, 422);
  t.is(again.body.message, 'Somente cobranças recorrentes CREATED ou ACTIVE podem ser canceladas');
  // the cycle is free again
  t.is((await recurringCharge(m, md.id, { dueDate: plusDays(today(), 4), amount: 9990 })).cycle, 0);
  t.is((await (await company(app)).http.patch(`/v1/recurring-charges/${rc.id}`, { status: 'CANCELED' })).status, 404);
});

test.serial('PATCH CANCELED on or after the due date: 422, nothing changed', async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  await daysLater(3, async () => {
    const res = await m.http.patch(`/v1/recurring-charges/${rc.id}`, { status: 'CANCELED' });
    t.is(res.status, 422);
    t.is(res.body.message, 'A cobrança recorrente só pode ser cancelada antes do vencimento (dueDate)');
  });
  t.is((await get(m, rc.id)).status, 'ACTIVE');
});

test('listing: newest first with total, by status and by mandate; another merchant sees none', async (t) => {
  const m = await company(app);
  const a = await approvedMandate(m, today());
  const b = await approvedMandate(m, today());
  const r1 = await recurringCharge(m, a.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  const r2 = await recurringCharge(m, a.id, { dueDate: plusDays(today(), 9), amount: 9990 });
  const r3 = await recurringCharge(m, b.id, { dueDate: plusDays(today(), 3), amount: 9990 });
  await m.http.patch(`/v1/recurring-charges/${r2.id}`, { status: 'CANCELED' });
  const all = (await m.http.get('/v1/recurring-charges')).body;
  t.like(all, { page: 1, limit: 20, total: 3 });
  t.deepEqual(
    all.recurringCharges.map((r: Json) => r.id),
    [r3.id, r2.id, r1.id],
  );
  const active = (await m.http.get('/v1/recurring-charges?status=ACTIVE&limit=1&page=2')).body;
  t.like(active, { page: 2, limit: 1, total: 2 });
  t.deepEqual(
    active.recurringCharges.map((r: Json) => r.id),
    [r1.id],
  );
  const ofA = (await m.http.get(`/v1/recurring-charges?mandateId=${a.id}`)).body;
  t.is(ofA.total, 2);
  t.deepEqual(
    ofA.recurringCharges.map((r: Json) => r.id),
    [r2.id, r1.id],
  );
  t.is((await m.http.get(`/v1/recurring-charges?mandateId=${a.id}&status=CANCELED`)).body.total, 1);
  t.is((await m.http.get(`/v1/recurring-charges?page=9`)).body.recurringCharges.length, 0);
  t.is((await m.http.get('/v1/recurring-charges?status=NOPE')).status, 400);
  t.is((await m.http.get('/v1/recurring-charges?mandateId=x')).status, 400);
  const other = await company(app);
  t.is((await other.http.get('/v1/recurring-charges')).body.total, 0);
  t.is((await other.http.get(`/v1/recurring-charges?mandateId=${a.id}`)).body.total, 0);
  t.is((await other.http.get(`/v1/recurring-charges/${r1.id}`)).status, 404);
  t.is((await m.http.get(`/v1/recurring-charges/nope`)).status, 404);
});

// A recurring charge paid through the sandbox and the worker.
async function paidRecurring(m: Company, amount = 9990) {
  const md = await approvedMandate(m, today(), { amount });
  const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount });
  await m.http.post(`/v1/sandbox/recurring-charges/${rc.id}/attempt`, { outcome: 'PAID' });
  return waitFor(
    () => get(m, rc.id),
    (r) => r.status === 'PAID',
  );
}

test("refunds: partial and multiple through src/refunds, recurring_charge.refunded each, REFUND lines with recurringChargeId; the charges' rules and messages", async (t) => {
  const m = await company(app);
  const unpaid = await recurringCharge(m, (await approvedMandate(m, today())).id, {
    dueDate: plusDays(today(), 3),
    amount: 9990,
  });
  const refused = await m.http.post(`/v1/recurring-charges/${unpaid.id}/refunds`, {});
  t.is(refused.status, 422);
  t.is(refused.body.message, 'Apenas cobranças pagas podem ser estornadas');
  const rc = await paidRecurring(m);
  const first = await m.http.post(`/v1/recurring-charges/${rc.id}/refunds`, {
    amount: 4000,
    reason: 'Cobrança indevida',
  });
  t.is(first.status, 202);
  t.like(first.body, {
    recurringCharge: { id: rc.id, status: 'PAID' },
    refund: { amount: 4000, status: 'PROCESSING' },
  });
  const over = await m.http.post(`/v1/recurring-charges/${rc.id}/refunds`, { amount: 6000 });
  t.is(over.body.message, 'Valor acima do que ainda pode ser estornado desta cobrança: 5990 centavos');
  const key = randomUUID();
  const second = await m.http.post(`/v1/recurring-charges/${rc.id}/refunds`, {}, { 'x-idempotency-key': key });
  t.is(second.status, 202);
  t.is(second.body.refund.amount, 5990);
  const replay = await m.http.post(`/v1/recurring-charges/${rc.id}/refunds`, {}, { 'x-idempotency-key': key });
  t.is(replay.status, 200);
  t.is(replay.body.refund.id, second.body.refund.id);
  const events = await waitFor(
    () => eventsOf(m.merchantId, 'recurring_charge.refunded'),
    (e) => e.length === 2,
  );
  t.deepEqual(
    events.map((e) => [e.data.id, e.data.refundedAmount, e.data.refund.amount]).sort((a, b) => a[1] - b[1]),
    [
      [rc.id, 4000, 4000],
      [rc.id, 9990, 5990],
    ],
  );
  t.is((await eventsOf(m.merchantId, 'charge.refunded')).length, 0);
  t.is((await get(m, rc.id)).refundedAmount, 9990);
  const refunds = (await m.http.get(`/v1/recurring-charges/${rc.id}/refunds`)).body.refunds;
  t.deepEqual(
    refunds.map((r: Json) => r.status),
    ['COMPLETED', 'COMPLETED'],
  );
  const st = (await m.http.get('/v1/merchants/me/statement')).body;
  t.deepEqual(
    st.entries.map((e: Json) => [e.type, e.recurringChargeId, e.chargeId]),
    [
      ['REFUND', rc.id, null],
      ['REFUND', rc.id, null],
      ['RECURRING_CHARGE_PAID', rc.id, null],
    ].concat(
      st.entries.length > 3 ? st.entries.slice(3).map((e: Json) => [e.type, e.recurringChargeId, e.chargeId]) : [],
    ),
  );
  t.is(
    st.entries.reduce((s: number, e: Json) => s + e.amount, 0),
    (await m.http.get('/v1/merchants/me/balance')).body.available,
  );
  t.is((await m.http.post(`/v1/recurring-charges/${randomUUID()}/refunds`, {})).status, 404);
  t.is((await m.http.get(`/v1/recurring-charges/${randomUUID()}/refunds`)).status, 404);
});

test('MED on a paid recurring charge: the sandbox infraction on its hidden row blocks, and accepted refunds it (recurring_charge.refunded, refund null)', async (t) => {
  const m = await company(app);
  const rc = await paidRecurring(m);
  const h = await hiddenOf(rc.id);
  const opened = await m.http.post(`/v1/sandbox/charges/${h.id}/infraction`, { reason: 'Golpe' });
  t.is(opened.status, 201);
  const balance = (await m.http.get('/v1/merchants/me/balance')).body;
  t.is(balance.blocked, 9990 - h.fee);
  const refund = await m.http.post(`/v1/recurring-charges/${rc.id}/refunds`, {});
  t.is(refund.status, 409);
  await decide(app.deps, app.orm.em.fork(), opened.body.infraction.id, 'accept');
  const [event] = await waitFor(
    () => eventsOf(m.merchantId, 'recurring_charge.refunded'),
    (e) => e.length === 1,
  );
  t.like(event.data, { id: rc.id, status: 'PAID', refund: null });
  const st = (await m.http.get('/v1/merchants/me/statement')).body;
  t.true(st.entries.every((e: Json) => e.recurringChargeId === rc.id && e.chargeId === null));
  t.deepEqual(st.entries.map((e: Json) => e.type).reverse(), [
    'RECURRING_CHARGE_PAID',
    'INFRACTION_BLOCK',
    'INFRACTION_REFUND',
  ]);
});

test("fees: the fee frozen at creation is what the payment takes (the merchant's own terms)", async (t) => {
  const m = await company(app);
  await sql(`update merchants set fee_bps = 250, fee_fixed = 10 where id = ?`, [m.merchantId]);
  const rc = await paidRecurring(m, 12345);
  t.is(rc.fee, platformFee(12345, { bps: 250, fixed: 10 }));
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 12345 - rc.fee);
});

test('property: any amount and fee terms, paid then refunded in parts: paid = net + fee in the ledger, ledger:verify clean, the statement sums to the balance', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 5_000_000 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 500 }),
      fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 0, maxLength: 3 }),
      async (amount, bps, fixed, parts) => {
        const m = await company(app);
        await sql(`update merchants set fee_bps = ?, fee_fixed = ? where id = ?`, [bps, fixed, m.merchantId]);
        const md = await approvedMandate(m, today(), { amount });
        const rc = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 3), amount });
        const [outcome] = await settlePayments(app.deps, app.orm.em.fork(), [
          { txid: rc.txid, endToEndId: sandboxEndToEndId(), amount, paidAt: new Date().toISOString() },
        ]);
        if (outcome !== 'paid') return false;
        const h = await hiddenOf(rc.id);
        const fee = platformFee(amount, { bps, fixed });
        const postings = await sql<{ code: string; amount: string }>(
          `select a.code, e.amount
             from ledger_entries e
             join ledger_transactions x on x.id = e.transaction_id
             join ledger_accounts a on a.id = e.account_id
            where x.kind = 'recurring_charge.payment' and x.reference_id = ?`,
          [h.id],
        );
        const of = (code: string) => Number(postings.find((p) => p.code === code)?.amount ?? 0);
        const net = of(`merchant:${m.merchantId}:available`);
        if (h.fee !== fee || -of('acquirer:settlement') !== amount || net + of('platform:fees') !== amount)
          return false;
        // refunds of parts (percent of what is left), each completed by the worker
        let left = amount;
        let asked = 0;
        for (const pct of parts) {
          const part = Math.max(1, Math.floor((left * pct) / 100));
          const res = await m.http.post(`/v1/recurring-charges/${rc.id}/refunds`, { amount: part });
          if (res.status !== 202) continue; // the balance cannot cover it (a fee that took it all): refused, nothing changed
          left -= part;
          asked++;
        }
        await waitFor(
          () => m.http.get(`/v1/recurring-charges/${rc.id}/refunds`),
          (r) => r.body.refunds.length === asked && r.body.refunds.every((x: Json) => x.status === 'COMPLETED'),
        );
        const report = await verifyLedger(app.orm.em.fork());
        const b = (await m.http.get('/v1/merchants/me/balance')).body;
        const st = (await m.http.get('/v1/merchants/me/statement?limit=100')).body;
        const sum = st.entries.reduce((s: number, e: Json) => s + e.amount, 0);
        return report.ok && sum === b.available + b.blocked && (await get(m, rc.id)).refundedAmount === amount - left;
      },
    ),
    { numRuns: 8 },
  );
  t.pass();
});

test("with a real PSP (apipix): CREATED and a job that PUTs the cobr, committed with it; ACTIVE on the PSP's word; cancel and retry jobs", async (t) => {
  const m = await company(app);
  const md = await approvedMandate(m, today());
  const deps = { ...app.deps, clock: () => now, acquirer: { ...app.deps.acquirer, name: 'apipix' as const } };
  const due = plusDays(today(), 3);
  const { recurringCharge: rc } = await createRecurringCharge(deps, app.orm.em.fork(), m.merchantId, {
    mandateId: md.id,
    dueDate: due,
    amount: 9990,
    description: 'Semana 1',
  });
  t.is(rc.status, 'CREATED');
  const jobs = async () =>
    (
      await sql<{ data: Json }>(
        `select data from pgboss.job where name = ? and data->>'op' is not null and (data->>'txid' = ? or data->'request'->>'txid' = ?) order by created_on`,
        [QUEUES.recurringChargeSync, rc.txid, rc.txid],
      )
    ).map((j) => j.data);
  t.deepEqual((await jobs())[0], {
    op: 'create',
    request: {
      txid: rc.txid,
      recId: md.recId,
      dueDate: due,
      amount: 9990,
      description: 'Semana 1',
      payer: { name: 'Maria Souza', document: '52998224725' },
    },
  });
  t.is((await activateRecurringCharge(deps, app.orm.em.fork(), { txid: rc.txid }))!.status, 'ACTIVE');
  await rejected(m, rc.id);
  await retryRecurringCharge(deps, app.orm.em.fork(), m.merchantId, rc.id, plusDays(due, 2));
  const other = await recurringCharge(m, md.id, { dueDate: plusDays(today(), 9), amount: 9990 });
  await cancelRecurringCharge(deps, app.orm.em.fork(), m.merchantId, other.id);
  t.deepEqual((await jobs()).slice(1), [{ op: 'retry', txid: rc.txid, date: plusDays(due, 2) }]);
  const cancelJobs = await sql(`select data from pgboss.job where name = ? and data->>'txid' = ?`, [
    QUEUES.recurringChargeSync,
    other.txid,
  ]);
  t.deepEqual(
    cancelJobs.map((j) => j.data),
    [{ op: 'cancel', txid: other.txid }],
  );
});
