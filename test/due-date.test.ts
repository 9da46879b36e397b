import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createOnboardedMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { parseBrCode } from '../src/pix/brcode.ts';
import { addDays, endOfSaoPauloDay, saoPauloDate } from '../src/charges/due-date.ts';
import { amountDueOn, type DueDateTerms } from '../src/money/due-date-amounts.ts';
import { signAcquirerBody, SIGNATURE_HEADER } from '../src/payments/notifications.routes.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { expireCharges } from '../src/charges/charges.states.ts';

// Charges with a due date in the sandbox, end to end (API, worker, webhook daemon), with the API's "today" fixed at
// 2028-02-27 10:00 in São Paulo: a due date on the leap day, a validity across the month's end.
const NOW = new Date('2028-02-27T13:00:00.000Z');
let app: TestApp;
let receiver: Receiver;
const stops: (() => Promise<void>)[] = [];
test.before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_SCALE: '0.01' }, { clock: () => new Date(NOW) });
  stops.push(await startBackground(app, 'worker'), await startBackground(app, 'webhooks'));
  receiver = await startReceiver();
});
test.after.always(async () => {
  for (const stop of stops) await stop();
  await receiver?.close();
  await app?.close();
});

const customer = () => ({ name: 'Escola Aprender', document: cpf() });
const TERMS = {
  amount: 10_000,
  description: 'Mensalidade de março',
  dueDate: '2028-02-29',
  rebate: { mode: 'FIXED', amount: 500 },
  discount: {
    mode: 'FIXED_UNTIL',
    dates: [
      { until: '2028-02-27', amount: 300 },
      { until: '2028-02-28', amount: 100 },
    ],
  },
  fine: { mode: 'PERCENT', bps: 200 },
  interest: { mode: 'MONTHLY_PERCENT', bps: 100 },
} as const;
const termsOf = (c: {
  amount: number;
  dueDate: string;
  rebate: unknown;
  discount: unknown;
  fine: unknown;
  interest: unknown;
}) =>
  ({
    original: c.amount,
    dueDate: c.dueDate,
    rebate: c.rebate,
    discount: c.discount,
    fine: c.fine,
    interest: c.interest,
  }) as DueDateTerms;

type Http = ReturnType<typeof client>;
async function dueCharge(http: Http, extra: object = {}) {
  const res = await http.post('/v1/charges', { ...TERMS, customer: customer(), ...extra });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.charge;
}
const chargeOf = async (http: Http, id: string) => (await http.get(`/v1/charges/${id}`)).body.charge;
const waitStatus = (http: Http, id: string, status: string) =>
  waitUntil(async () => {
    const c = await chargeOf(http, id);
    return c.status === status ? c : null;
  }, 15_000);
const sql = (q: string, params: unknown[] = []) => app.orm.em.fork().execute(q, params);

// What a PSP POSTs (signed), for payments the sandbox route would not make.
function notify(items: object[]) {
  const body = JSON.stringify({ pix: items });
  return client(app.baseUrl).call('POST', '/v1/acquirer/notifications', body, {
    'content-type': 'application/json',
    [SIGNATURE_HEADER]: signAcquirerBody(app.config.acquirerWebhookSecret, body),
  });
}
const reais = (cents: number) => (cents / 100).toFixed(2);
const unmatchedOf = async (e2e: string) =>
  waitUntil(async () => (await sql('select * from unmatched_payments where end_to_end_id = ?', [e2e]))[0], 15_000);

test('a due-date charge: its terms, type DUE_DATE, amountDue for today, validity to 23:59:59 of its last day', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await dueCharge(m.http);
  t.like(c, {
    type: 'DUE_DATE',
    amount: 10_000,
    dueDate: '2028-02-29',
    validityAfterDueDays: 30, // the default
    rebate: TERMS.rebate,
    discount: TERMS.discount,
    fine: TERMS.fine,
    interest: TERMS.interest,
    status: 'PENDING',
    paidAmount: null,
    components: null,
    fee: 99, // on the original amount until paid
  });
  // today (2028-02-27): 10000 - 500 rebate - 300 (the earliest `until` on or after today)
  t.is(c.amountDue, 9_200);
  // the last valid day is 2028-02-29 + 30 = 2028-03-30, until 23:59:59 in São Paulo (UTC-3)
  t.is(c.expiresAt, '2028-03-31T02:59:59.999Z');
  t.is(c.expiresIn, (Date.parse('2028-03-31T02:59:59Z') - NOW.getTime()) / 1000);
  t.is(c.createdAt, NOW.toISOString());
  // a dynamic BR Code without a fixed amount: the payer's bank reads today's from the location
  const brcode = parseBrCode(c.qrCode);
  t.true(brcode.crcValid);
  t.false('54' in brcode.fields);
  // immediate charges say so, with null terms
  const immediate = (await m.http.post('/v1/charges', { amount: 500, description: 'x' })).body.charge;
  t.like(immediate, { type: 'IMMEDIATE', dueDate: null, rebate: null, amountDue: 500, paidAmount: null });
  // listed with the same fields
  const listed = (await m.http.get('/v1/charges?limit=2')).body.charges.find((x: { id: string }) => x.id === c.id);
  t.like(listed, { type: 'DUE_DATE', amountDue: 9_200, dueDate: '2028-02-29' });
});

test('the location serves the amount due for any day: before, on, after the due date, across the month end', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await dueCharge(m.http, { validityAfterDueDays: 40 });
  const anon = client(app.baseUrl);
  const days = ['2028-02-27', '2028-02-28', '2028-02-29', '2028-03-01', '2028-03-02', '2028-03-31', '2028-04-09'];
  for (const day of days) {
    const loc = await anon.get(`/pix/qr/${c.txid}?date=${day}`);
    t.is(loc.status, 200);
    const due = amountDueOn(termsOf(c), day);
    t.deepEqual(
      loc.body.valor,
      {
        original: reais(due.original),
        abatimento: reais(due.rebate),
        desconto: reais(due.discount),
        multa: reais(due.fine),
        juros: reais(due.interest),
        final: reais(due.final),
      },
      day,
    );
  }
  // hand-checked: base 9500; 2028-03-01 is 1 day late: fine 190, interest 9500 * 1% * 1/30 = 3.17 -> 3
  t.is((await anon.get(`/pix/qr/${c.txid}?date=2028-03-01`)).body.valor.final, '96.93');
  // 31 days late (2028-03-31): interest 9500 * 1% * 31/30 = 98.17 -> 98
  t.is((await anon.get(`/pix/qr/${c.txid}?date=2028-03-31`)).body.valor.final, '97.88');
  const today = await anon.get(`/pix/qr/${c.txid}`);
  t.like(today.body, {
    status: 'ATIVA',
    calendario: { dataDeVencimento: '2028-02-29', validadeAposVencimento: 40 },
    valor: { final: '92.00' },
    devedor: { nome: 'Escola Aprender' },
  });
  t.is((await anon.get(`/pix/qr/${c.txid}?date=2028-02-30`)).status, 400);
  t.is((await anon.get(`/pix/qr/${c.txid}?date=2028-03-01&date=2028-03-02`)).status, 400);
});

test('paid before, on and after the due date: PAID with paidAmount and components, the fee on what was paid', async (t) => {
  const m = await createOnboardedMerchant(app);
  const hook = await m.http.post('/v1/webhooks/merchant', {
    url: receiver.url(`/due/${m.merchantId}`),
    events: ['charge.paid'],
  });
  const secret = hook.body.webhook.secret as string;
  const cases: [string, number, object][] = [
    ['2028-02-28', 9_400, { rebate: 500, discount: 100, fine: 0, interest: 0 }], // the second discount date
    ['2028-02-29', 9_500, { rebate: 500, discount: 0, fine: 0, interest: 0 }], // on the (leap) due date
    ['2028-03-02', 9_696, { rebate: 500, discount: 0, fine: 190, interest: 6 }], // 2 days late: 9500 * 2/3000
  ];
  let credited = 0;
  for (const [date, amount, parts] of cases) {
    const c = await dueCharge(m.http);
    const pay = await m.http.post(`/v1/sandbox/charges/${c.id}/pay`, { date });
    t.is(pay.status, 202);
    t.is(pay.body.amount, amount);
    t.is(pay.body.paidAt, new Date(endOfSaoPauloDay(date).getTime() + 1000 - 12 * 3_600_000).toISOString());
    const paid = await waitStatus(m.http, c.id, 'PAID');
    const fee = Math.floor((amount * 99 + 5000) / 10000); // default 0.99 %, on the amount paid
    t.like(paid, {
      paidAmount: amount,
      amountDue: null,
      components: { original: 10_000, ...parts, final: amount },
      fee,
      netAmount: amount - fee,
      endToEndId: pay.body.endToEndId,
      paidAt: pay.body.paidAt,
    });
    credited += amount - fee;
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, credited);
  }
  // the webhook receiver sees each charge.paid with the new fields
  const deliveries = await waitUntil(() => {
    const got = receiver.requests.filter((r) => r.path === `/due/${m.merchantId}`);
    return Promise.resolve(got.length === 3 ? got : null);
  }, 15_000);
  const events = deliveries.map((d) => JSON.parse(d.body));
  for (const e of events) {
    t.is(e.event, 'charge.paid');
    t.like(e.data, { type: 'DUE_DATE', dueDate: '2028-02-29', status: 'PAID', amountDue: null });
    t.is(e.data.components.final, e.data.paidAmount);
  }
  t.deepEqual(events.map((e) => e.data.paidAmount).sort(), [9_400, 9_500, 9_696]);
  const wh = new Webhook(secret.replace(/^wh_/, ''));
  for (const d of deliveries) t.notThrows(() => wh.verify(d.body, d.headers as Record<string, string>));
  t.true((await verifyLedger(app.orm.em.fork())).ok);
});

test('another amount than the amount due on the payment day pays nothing: unmatched and returned', async (t) => {
  // notified as a PSP would, whose payment times are never believed ahead of now: a charge made 40 days ago
  const today = saoPauloDate(new Date(Date.now() - 40 * 86_400_000));
  const noon = (date: string) => new Date(endOfSaoPauloDay(date).getTime() + 1000 - 12 * 3_600_000);
  const recent = await startTestApp({}, { databaseUrl: app.databaseUrl, clock: () => noon(today) });
  t.teardown(() => recent.close());
  const m = await createOnboardedMerchant(recent);
  const c = await dueCharge(m.http, { dueDate: addDays(today, 2), validityAfterDueDays: 3650, discount: null });
  const paidAt = noon(addDays(today, 4)).toISOString();
  // 2 days late, it owes 96.96: the original amount, or the amount due of another day, is refused
  const wrong = [
    { endToEndId: sandboxEndToEndId(), valor: '100.00' },
    { endToEndId: sandboxEndToEndId(), valor: '95.00' }, // what the due date itself would have owed
  ];
  t.is((await notify(wrong.map((w) => ({ ...w, txid: c.txid, horario: paidAt })))).status, 200);
  for (const w of wrong) {
    const u = await unmatchedOf(w.endToEndId);
    t.like(u, { reason: 'AMOUNT_MISMATCH', txid: c.txid });
    const returned = await waitUntil(
      async () =>
        (await sql(`select * from refunds where end_to_end_id = ? and status = 'COMPLETED'`, [w.endToEndId]))[0],
      15_000,
    );
    t.is(Number(returned.amount), Number(w.valor.replace('.', ''))); // bigint: read as text
  }
  t.is((await chargeOf(m.http, c.id)).status, 'PENDING');
  // the right amount with other components (a PSP that computed another discount and fine) is refused too
  const e2e = sandboxEndToEndId();
  const components = { original: { valor: '100.00' }, abatimento: { valor: '5.00' }, multa: { valor: '1.96' } };
  await notify([{ endToEndId: e2e, txid: c.txid, valor: '96.96', horario: paidAt, componentesValor: components }]);
  t.like(await unmatchedOf(e2e), { reason: 'AMOUNT_MISMATCH' });
  // a notification cannot pass for the sandbox's simulation: its time ahead of now counts as now, so the amount due 60
  // days on is another amount
  const ahead = sandboxEndToEndId();
  const in60 = amountDueOn(termsOf(c), addDays(today, 60)).final;
  const forged = {
    endToEndId: ahead,
    txid: c.txid,
    valor: reais(in60),
    horario: noon(addDays(today, 60)).toISOString(),
  };
  await notify([{ ...forged, simulated: true }]);
  t.like(await unmatchedOf(ahead), { reason: 'AMOUNT_MISMATCH' });
  // and the right amount with the right components pays it
  const good = sandboxEndToEndId();
  const right = { ...components, multa: { valor: '1.90' }, juros: { valor: '0.06' } };
  await notify([{ endToEndId: good, txid: c.txid, valor: '96.96', horario: paidAt, componentesValor: right }]);
  t.like(await waitStatus(m.http, c.id, 'PAID'), { endToEndId: good, paidAmount: 9_696 });
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 9_696 - 96);
  t.true((await verifyLedger(app.orm.em.fork())).ok);
});

test("a sandbox payer years late pays the last valid day's amount (never more than a charge can ask): returned", async (t) => {
  const m = await createOnboardedMerchant(app);
  const big = await dueCharge(m.http, {
    amount: 2_000_000_000,
    dueDate: '2028-02-27',
    validityAfterDueDays: 1,
    rebate: null,
    discount: null,
    fine: null,
    interest: { mode: 'DAILY_PERCENT', bps: 100 },
  });
  const late = await m.http.post(`/v1/sandbox/charges/${big.id}/pay`, { date: '2035-01-01' });
  t.is(late.status, 202);
  t.is(late.body.amount, 2_000_000_000 + 20_000_000); // the amount due on 2028-02-28, its last valid day
  const unmatched = await unmatchedOf(late.body.endToEndId);
  t.like(unmatched, { reason: 'EXPIRED' });
  t.is(Number(unmatched.amount), 2_020_000_000);
  t.is((await chargeOf(m.http, big.id)).status, 'CANCELED');
});

test('a refund of a due-date charge gives back what was paid', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await dueCharge(m.http);
  await m.http.post(`/v1/sandbox/charges/${c.id}/pay`, { date: '2028-03-01' });
  const paid = await waitStatus(m.http, c.id, 'PAID');
  t.is(paid.paidAmount, 9_693);
  const refund = await m.http.post(`/v1/charges/${c.id}/refund`);
  t.is(refund.status, 202);
  t.is(refund.body.refund.amount, 9_693);
  await waitStatus(m.http, c.id, 'REFUNDED');
  t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 0);
  t.true((await verifyLedger(app.orm.em.fork())).ok);
});

test('a MED infraction disputes what the payer paid, and blocks it', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await dueCharge(m.http);
  await m.http.post(`/v1/sandbox/charges/${c.id}/pay`, { date: '2028-02-28' });
  await waitStatus(m.http, c.id, 'PAID');
  const opened = await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, { reason: 'Golpe' });
  t.is(opened.status, 201);
  t.is(opened.body.infraction.amount, 9_400);
  t.deepEqual((await m.http.get('/v1/merchants/me/balance')).body, {
    available: 0,
    blocked: 9_400 - 93,
    currency: 'BRL',
  });
});

test('idempotency: a replay answers the creation (amountDue of the creation day, fee on the original amount)', async (t) => {
  const m = await createOnboardedMerchant(app);
  const key = { 'x-idempotency-key': 'boleto-1' };
  const body = { ...TERMS, customer: customer() };
  const first = await m.http.post('/v1/charges', body, key);
  t.is(first.status, 201);
  // the explicit default is the same request
  const replay = await m.http.post('/v1/charges', { ...body, validityAfterDueDays: 30 }, key);
  t.is(replay.status, 200);
  t.deepEqual(replay.body, first.body);
  await m.http.post(`/v1/sandbox/charges/${first.body.charge.id}/pay`, { date: '2028-03-10' });
  await waitStatus(m.http, first.body.charge.id, 'PAID');
  const later = await m.http.post('/v1/charges', body, key);
  t.deepEqual(later.body, first.body);
  t.is((await m.http.post('/v1/charges', { ...body, fine: { mode: 'PERCENT', bps: 100 } }, key)).status, 409);
});

test('every rule of a due date is a 400 naming its field, and nothing is created', async (t) => {
  const m = await createOnboardedMerchant(app);
  const base = { amount: 10_000, description: 'x', dueDate: '2028-03-10', customer: customer() };
  const bad: [object, string][] = [
    [{ ...base, dueDate: '2028-02-26' }, 'dueDate'], // yesterday in São Paulo
    [{ ...base, dueDate: '2028-02-30' }, 'dueDate'],
    [{ ...base, dueDate: '10/03/2028' }, 'dueDate'],
    [{ ...base, dueDate: '2038-02-28' }, 'dueDate'], // more than 3650 days ahead
    [{ ...base, expiresIn: 3600 }, 'expiresIn'],
    [{ ...base, customer: undefined }, 'customer'],
    [{ amount: 100, description: 'x', fine: { mode: 'FIXED', amount: 1 } }, 'fine'], // no due date
    [{ amount: 100, description: 'x', validityAfterDueDays: 3 }, 'validityAfterDueDays'],
    [{ ...base, validityAfterDueDays: 3651 }, 'validityAfterDueDays'],
    [{ ...base, validityAfterDueDays: -1 }, 'validityAfterDueDays'],
    [{ ...base, rebate: { mode: 'FIXED', amount: 10_000 } }, 'rebate.amount'],
    [{ ...base, rebate: { mode: 'PERCENT', bps: 10_000 } }, 'rebate.bps'],
    [{ ...base, rebate: { mode: 'PERCENT', amount: 10 } }, 'rebate'],
    [{ ...base, rebate: { mode: 'FIXED', amount: 10, bps: 5 } }, 'rebate'],
    [{ ...base, discount: { mode: 'FIXED_UNTIL', dates: [] } }, 'discount.dates'],
    [
      {
        ...base,
        discount: { mode: 'FIXED_UNTIL', dates: [1, 2, 3, 4].map((d) => ({ until: `2028-03-0${d}`, amount: 1 })) },
      },
      'discount.dates',
    ],
    [
      {
        ...base,
        discount: {
          mode: 'FIXED_UNTIL',
          dates: [
            { until: '2028-03-05', amount: 1 },
            { until: '2028-03-04', amount: 1 },
          ],
        },
      },
      'discount.dates',
    ],
    [
      { ...base, discount: { mode: 'FIXED_UNTIL', dates: [{ until: '2028-03-11', amount: 1 }] } },
      'discount.dates[0].until',
    ], // after the due date
    [
      { ...base, discount: { mode: 'FIXED_UNTIL', dates: [{ until: '2028-02-26', amount: 1 }] } },
      'discount.dates[0].until',
    ], // past
    [{ ...base, discount: { mode: 'PERCENT_UNTIL', dates: [{ until: '2028-03-05', amount: 1 }] } }, 'discount.dates'],
    [
      { ...base, discount: { mode: 'PERCENT_UNTIL', dates: [{ until: '2028-03-05', bps: 0 }] } },
      'discount.dates[0].bps',
    ],
    [{ ...base, discount: { mode: 'DAILY_AMOUNT', amount: 10_000 } }, 'discount.amount'],
    [{ ...base, discount: { mode: 'DAILY_PERCENT', bps: 1.5 } }, 'discount.bps'],
    [{ ...base, discount: { mode: 'WEEKLY', bps: 1 } }, 'discount'],
    [{ ...base, fine: { mode: 'PERCENT', bps: 10_001 } }, 'fine.bps'],
    [{ ...base, fine: { mode: 'FIXED', amount: '100' } }, 'fine.amount'],
    [{ ...base, interest: { mode: 'YEARLY_PERCENT', bps: 10_001 } }, 'interest.bps'],
    [{ ...base, interest: { mode: 'DAILY_AMOUNT', amount: 0 } }, 'interest.amount'],
    [{ ...base, interest: 'juros' }, 'interest'],
    // the most it could ever ask (the last valid day) must fit the amount's limit
    [{ ...base, amount: 2_000_000_000, interest: { mode: 'DAILY_PERCENT', bps: 100 } }, 'interest'],
    [{ ...base, amount: 2_000_000_000, fine: { mode: 'PERCENT', bps: 1_000 } }, 'fine'],
  ];
  for (const [body, field] of bad) {
    const res = await m.http.post('/v1/charges', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(
      res.body.errors?.some((e: { field: string }) => e.field === field),
      `${field}: ${JSON.stringify(res.body)}`,
    );
  }
  const [{ n }] = await sql('select count(*)::int as n from charges where merchant_id = ?', [m.merchantId]);
  t.is(n, 0);
  // the edges that are allowed: due today, no validity after it, the largest percentages
  const edge = await m.http.post('/v1/charges', {
    ...base,
    dueDate: '2028-02-27',
    validityAfterDueDays: 0,
    rebate: { mode: 'PERCENT', bps: 9_999 },
    fine: { mode: 'PERCENT', bps: 10_000 },
    interest: { mode: 'DAILY_PERCENT', bps: 10_000 },
  });
  t.is(edge.status, 201, JSON.stringify(edge.body));
  t.is(edge.body.charge.amountDue, 1); // 99.99 % off 10000 leaves 1 centavo
  t.is(edge.body.charge.expiresAt, '2028-02-28T02:59:59.999Z');
});

test('validity: CANCELED by the sweep after 23:59:59 of the last valid day; a payment within that day still pays it', async (t) => {
  // an API whose "today" is in the past (same database): its charges' validity is already over
  const past = await startTestApp({}, { databaseUrl: app.databaseUrl, clock: () => new Date('2025-01-31T12:00:00Z') });
  t.teardown(() => past.close());
  const m = await createOnboardedMerchant(past);
  const none = { rebate: null, discount: null, fine: null, interest: null };
  const body = { amount: 5_000, description: 'Aluguel', dueDate: '2025-01-31', validityAfterDueDays: 0, ...none };
  const [a, b] = [await dueCharge(m.http, body), await dueCharge(m.http, body)];
  t.is(a.expiresAt, '2025-02-01T02:59:59.999Z');
  await expireCharges(app.deps, app.orm.em.fork()); // or the worker's sweep, whichever comes first
  t.is((await chargeOf(m.http, b.id)).status, 'CANCELED');
  const canceled = await chargeOf(m.http, a.id);
  t.like(canceled, { status: 'CANCELED', canceledAt: a.expiresAt, amountDue: null });
  // paid at 23:59:59.5 of the due date (São Paulo), settled after the sweep: it pays
  const inTime = sandboxEndToEndId();
  await notify([{ endToEndId: inTime, txid: a.txid, valor: '50.00', horario: '2025-02-01T02:59:59.500Z' }]);
  t.like(await waitStatus(m.http, a.id, 'PAID'), { paidAmount: 5_000, canceledAt: null });
  // paid at midnight, the first instant after the validity: returned, the charge stays CANCELED
  const late = sandboxEndToEndId();
  await notify([{ endToEndId: late, txid: b.txid, valor: '50.00', horario: '2025-02-01T03:00:00.000Z' }]);
  t.like(await unmatchedOf(late), { reason: 'EXPIRED' });
  t.is((await chargeOf(m.http, b.id)).status, 'CANCELED');
  // and the sandbox cannot pay a day before the charge existed
  const c = await dueCharge(client(past.baseUrl, m.token), { ...body, validityAfterDueDays: 10 });
  const early = await m.http.post(`/v1/sandbox/charges/${c.id}/pay`, { date: '2025-01-30' });
  t.deepEqual(
    [early.status, early.body],
    [422, { code: 'payment_before_charge', message: 'date é anterior à criação da cobrança' }],
  );
  t.is((await m.http.post(`/v1/sandbox/charges/${c.id}/pay`, { date: '30/01/2025' })).status, 400);
});
