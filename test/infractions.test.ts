import test from 'ava';
import { startTestApp, startBackground, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Receiver } from './support/receiver.ts';
import { ops } from './withdrawals.helpers.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { decide } from '../src/infractions/infractions.states.ts';
import { QUEUES } from '../src/platform/queue.ts';

// MED infractions in the sandbox: the API, the worker and the webhook daemon of one test database, a real receiver.
let app: TestApp;
let receiver: Receiver;
const stops: (() => Promise<void>)[] = [];
test.before(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_SCALE: '0.01' });
  stops.push(await startBackground(app, 'worker'), await startBackground(app, 'webhooks'));
  receiver = await startReceiver();
});
test.after.always(async () => {
  for (const stop of stops) await stop();
  await receiver?.close();
  await app?.close();
});

type Merchant = Awaited<ReturnType<typeof createOnboardedMerchant>>;
const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);
const balance = async (m: Merchant) => (await m.http.get('/v1/merchants/me/balance')).body;

async function paidCharge(m: Merchant, amount: number) {
  const c = (await m.http.post('/v1/charges', { amount, description: 'Pedido' })).body.charge;
  await m.http.post(`/v1/sandbox/charges/${c.id}/pay`);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${c.id}`)).body.charge.status === 'PAID', 15_000, 'PAID');
  return c as { id: string; amount: number };
}

async function merchantWithHook() {
  const m = await createOnboardedMerchant(app);
  await m.http.post('/v1/webhooks/merchant', {
    url: receiver.url(`/${m.merchantId}`),
    events: ['infraction.received', 'infraction.updated', 'infraction.refund_completed'],
  });
  return m;
}

const eventsOf = (m: Merchant) =>
  receiver.requests
    .filter((r) => r.path === `/${m.merchantId}`)
    .map((r) => JSON.parse(r.body) as { event: string; data: { id: string; status: string } });

async function ledgerClean(t: import('ava').ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
}

test.serial(
  'an infraction blocks the amount, takes a defence, and REJECTED gives it back; its events arrive',
  async (t) => {
    const m = await merchantWithHook();
    const c = await paidCharge(m, 10_000); // net 9901
    const opened = await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, { reason: 'Golpe' });
    t.is(opened.status, 201);
    const i = opened.body.infraction;
    t.like(i, { chargeId: c.id, amount: 10_000, status: 'OPEN', reason: 'Golpe', defense: null, blockedAmount: 9901 });
    t.true(Date.parse(i.deadlineAt) - Date.parse(i.createdAt) >= 72 * 3600_000 - 1000);
    t.deepEqual(await balance(m), { available: 0, blocked: 9901, currency: 'BRL' });

    // listed, readable, not by another merchant, and the charge cannot be refunded meanwhile
    const list = await m.http.get('/v1/infractions');
    t.is(list.body.total, 1);
    t.is(list.body.infractions[0].id, i.id);
    t.is((await m.http.get(`/v1/infractions/${i.id}`)).body.infraction.status, 'OPEN');
    const other = await createOnboardedMerchant(app);
    t.is((await other.http.get(`/v1/infractions/${i.id}`)).status, 404);
    t.is((await other.http.post(`/v1/infractions/${i.id}/defense`, { text: 'não' })).status, 404);
    const refund = await m.http.post(`/v1/charges/${c.id}/refund`, {});
    t.is(refund.status, 409);
    t.regex(refund.body.message, /infração/);
    t.is((await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, {})).status, 409, 'one open per charge');

    for (const bad of [{}, { text: '' }, { text: 'x'.repeat(5001) }, { text: ['a'] }])
      t.is((await m.http.post(`/v1/infractions/${i.id}/defense`, bad)).status, 400);
    const defended = await m.http.post(`/v1/infractions/${i.id}/defense`, { text: 'O cliente recebeu o produto.' });
    t.is(defended.status, 200);
    t.like(defended.body.infraction, { status: 'UNDER_REVIEW', defense: 'O cliente recebeu o produto.' });
    t.is((await m.http.post(`/v1/infractions/${i.id}/defense`, { text: 'de novo' })).status, 422);

    const rejected = await ops(app, 'infraction:reject', '--id', i.id);
    t.is(rejected.code, 0, rejected.err);
    t.is(rejected.json.infraction.status, 'REJECTED');
    t.is((await ops(app, 'infraction:cancel', '--id', i.id)).code, 1, 'decided once');
    t.deepEqual(await balance(m), { available: 9901, blocked: 0, currency: 'BRL' });
    await waitUntil(async () => eventsOf(m).length >= 3, 15_000, 'three events');
    t.deepEqual(
      eventsOf(m).map((e) => `${e.event}:${e.data.status}`),
      ['infraction.received:OPEN', 'infraction.updated:UNDER_REVIEW', 'infraction.updated:REJECTED'],
    );
    await ledgerClean(t);
  },
);

test.serial('only PAID charges: a PENDING one is refused and nothing is opened', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = (await m.http.post('/v1/charges', { amount: 500, description: 'Pedido' })).body.charge;
  const res = await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, {});
  t.is(res.status, 422);
  t.is(res.body.message, 'Apenas cobranças pagas podem receber uma infração');
  t.is((await sql('select 1 from infractions where charge_id = ?', [c.id])).length, 0);
  t.is((await m.http.post('/v1/sandbox/charges/00000000-0000-4000-8000-000000000000/infraction', {})).status, 404);
});

test.serial(
  'a shortfall blocks the next credits, withdrawals cannot take it; ACCEPTED refunds the payer',
  async (t) => {
    const m = await merchantWithHook();
    const c = await paidCharge(m, 10_000); // 9901 available
    t.is(
      (await m.http.post('/v1/merchants/me/withdrawals', { amount: 9000, pixKeyType: 'EMAIL', pixKey: 'a@b.co' }))
        .status,
      201,
    );
    const i = (await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, {})).body.infraction;
    t.is(i.blockedAmount, 901);
    t.deepEqual(await balance(m), { available: 0, blocked: 901, currency: 'BRL' });

    await paidCharge(m, 5_000); // +4950: 4950 of the 9099 owed is blocked by the cover job
    await app.boss.send(QUEUES.infractionsCover, {});
    await waitUntil(async () => (await balance(m)).blocked === 901 + 4950, 15_000, 'credit blocked');
    t.is((await balance(m)).available, 0);
    const w = await m.http.post('/v1/merchants/me/withdrawals', { amount: 1, pixKeyType: 'EMAIL', pixKey: 'a@b.co' });
    t.is(w.status, 422);
    t.is(w.body.message, 'Saldo insuficiente');

    const accepted = await ops(app, 'infraction:accept', '--id', i.id);
    t.is(accepted.code, 0, accepted.err);
    t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'REFUNDED');
    t.deepEqual(await balance(m), { available: 0, blocked: 0, currency: 'BRL' });
    const [loss] = await sql<{ balance: string }>(
      `select balance from ledger_accounts where code = 'platform:med-losses'`,
    );
    t.is(Number(loss.balance), -(10_000 - 901 - 4950), 'what the merchant could not cover');
    await waitUntil(
      async () => eventsOf(m).some((e) => e.event === 'infraction.refund_completed'),
      15_000,
      'refund_completed',
    );
    t.deepEqual(
      eventsOf(m)
        .map((e) => e.event)
        .sort(), // delivery order is not guaranteed
      ['infraction.received', 'infraction.refund_completed', 'infraction.updated'],
    );
    const list = await ops(app, 'infractions:list', '--open');
    t.false(list.json.infractions.some((x: { id: string }) => x.id === i.id));
    await ledgerClean(t);
  },
);

test.serial('a withdrawal racing the opening: never both, never negative', async (t) => {
  for (let round = 0; round < 5; round++) {
    const m = await createOnboardedMerchant(app);
    const c = await paidCharge(m, 10_000);
    const [w, o] = await Promise.all([
      m.http.post('/v1/merchants/me/withdrawals', { amount: 9901, pixKeyType: 'EMAIL', pixKey: 'a@b.co' }),
      m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, {}),
    ]);
    t.is(o.status, 201);
    const b = await balance(m);
    t.true(b.available >= 0);
    if (w.status === 201) t.is(o.body.infraction.blockedAmount, 0, 'withdrawn first: nothing left to block');
    else {
      t.is(w.status, 422);
      t.deepEqual(b, { available: 0, blocked: 9901, currency: 'BRL' });
    }
  }
  await ledgerClean(t);
});

test.serial('two outcomes racing: exactly one applies', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 3_000);
  const i = (await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, {})).body.infraction;
  const deps = { boss: app.boss, config: app.config, logger: app.deps.logger };
  const results = await Promise.all([
    decide(deps, app.orm.em.fork(), i.id, 'accept'),
    decide(deps, app.orm.em.fork(), i.id, 'reject'),
    decide(deps, app.orm.em.fork(), i.id, 'cancel'),
  ]);
  t.is(results.filter(Boolean).length, 1);
  const status = results.find(Boolean)!.status;
  const b = await balance(m);
  if (status === 'ACCEPTED') t.deepEqual(b, { available: 0, blocked: 0, currency: 'BRL' });
  else t.deepEqual(b, { available: 2970, blocked: 0, currency: 'BRL' });
  await ledgerClean(t);
});
