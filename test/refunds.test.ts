// Partial and multiple refunds (contract "Refunds: partial and multiple") through the API, with the sandbox acquirer.
// No worker runs: each refund is sent (the worker's own handler, sendRefund: the sandbox confirms at once) or failed
// when the test says, so several can be PROCESSING at once and every race is the test's own.
import test from 'ava';
import fc from 'fast-check';
import { startTestApp, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { settlePayments } from '../src/payments/settlement.ts';
import { applyAcquirerInfraction, decide } from '../src/infractions/infractions.states.ts';
import { applyRefundResult, sendRefund } from '../src/refunds/refunds.states.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { QUEUES } from '../src/platform/queue.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});
test.afterEach.always(async (t) => {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
});

type Merchant = Awaited<ReturnType<typeof createOnboardedMerchant>>;
type Charge = { id: string; amount: number; fee: number; endToEndId: string };
const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);
const balance = async (m: Merchant) => (await m.http.get('/v1/merchants/me/balance')).body;
const chargeOf = async (m: Merchant, id: string) => (await m.http.get(`/v1/charges/${id}`)).body.charge;
const complete = (refundId: string) => sendRefund(app.deps, refundId);
const fail = (refundId: string) =>
  applyRefundResult(app.deps, refundId, { status: 'FAILED', failureReason: 'Recusada' });

// A PAID charge, settled as the worker settles its payment.
async function paidCharge(m: Merchant, amount: number): Promise<Charge> {
  const c = (await m.http.post('/v1/charges', { amount, description: 'Pedido' })).body.charge;
  const n = { txid: c.txid, endToEndId: sandboxEndToEndId(), amount, paidAt: new Date().toISOString() };
  const [outcome] = await settlePayments(app.deps, app.orm.em.fork(), [n]);
  if (outcome !== 'paid') throw new Error(`not paid: ${outcome}`);
  return { id: c.id, amount, fee: c.fee, endToEndId: n.endToEndId };
}

// What the platform's fee account holds for a charge: its payment's fee less what its refunds gave back.
const feeKept = async (c: Charge) =>
  Number(
    (
      await sql<{ s: string }>(
        `select coalesce(sum(e.amount), 0) as s
           from ledger_entries e
           join ledger_transactions x on x.id = e.transaction_id
           join ledger_accounts a on a.id = e.account_id
          where a.code = 'platform:fees'
            and (x.reference_id = ? or x.reference_id in (select id from refunds where charge_id = ?))`,
        [c.id, c.id],
      )
    )[0].s,
  );

// Everything a refused request could have changed.
const stateOf = async (m: Merchant, c: Charge) => ({
  balance: await balance(m),
  refunds: (await sql('select id, status from refunds where charge_id = ? order by id', [c.id])).length,
  jobs: Number(
    (
      await sql<{ n: string }>(
        `select count(*) as n from pgboss.job where name = ? and data->>'refundId' in (select id::text from refunds where charge_id = ?)`,
        [QUEUES.refundSend, c.id],
      )
    )[0].n,
  ),
  charge: await chargeOf(m, c.id),
  fee: await feeKept(c),
});

test('a charge refunded in three parts: each its own refund, its share of the fee, its event; REFUNDED at the end', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 10_000); // fee 99, net 9901
  await paidCharge(m, 5_000); // other money: net 4950
  const first = await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 2_500, reason: '  Produto devolvido ' });
  t.is(first.status, 202);
  t.like(first.body.refund, { amount: 2_500, reason: 'Produto devolvido', status: 'PROCESSING' });
  t.like(first.body.charge, { status: 'PAID', refundedAmount: 0 });
  t.false('imageBase64' in first.body.charge);
  // held at once: 2500 - round_half_up(99 × 2500 / 10000) = 2500 - 25 from the merchant
  t.deepEqual(await balance(m), { available: 9_901 + 4_950 - 2_475, blocked: 0, currency: 'BRL' });
  const second = await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 4_000 });
  t.is(second.status, 202);
  t.is(second.body.refund.reason, null);
  // two in progress at once
  t.deepEqual(
    (await m.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds.map((r: { status: string }) => r.status),
    ['PROCESSING', 'PROCESSING'],
  );
  await complete(first.body.refund.id);
  t.like(await chargeOf(m, c.id), { status: 'PAID', refundedAmount: 2_500, refundedAt: null });
  await complete(second.body.refund.id);
  t.like(await chargeOf(m, c.id), { status: 'PAID', refundedAmount: 6_500 });
  // the first refund route, no body: everything still refundable (3500), with the rest of the fee (99 - 25 - 40 = 34)
  const rest = await m.http.call('POST', `/v1/charges/${c.id}/refund`); // no body at all
  t.is(rest.status, 202);
  t.like(rest.body.refund, { amount: 3_500 });
  t.like(rest.body.charge, { refundedAmount: 6_500 });
  await complete(rest.body.refund.id);
  const done = await chargeOf(m, c.id);
  t.like(done, { status: 'REFUNDED', refundedAmount: 10_000 });
  t.truthy(Date.parse(done.refundedAt));
  t.is(done.refund.id, rest.body.refund.id, 'charge.refund stays the latest');
  const listed = (await m.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds;
  t.deepEqual(
    listed.map((r: { id: string; status: string }) => [r.id, r.status]),
    [rest, second, first].map((r) => [r.body.refund.id, 'COMPLETED']),
    'newest first',
  );
  // the merchant gave back exactly its net, the platform exactly its fee
  t.deepEqual(await balance(m), { available: 4_950, blocked: 0, currency: 'BRL' });
  t.is(await feeKept(c), 0);
  const events = await sql<{ data: { status: string; refundedAmount: number; refund: { id: string } } }>(
    `select data from events where merchant_id = ? and type = 'charge.refunded' order by created_at, id`,
    [m.merchantId],
  );
  t.deepEqual(
    events.map((e) => [e.data.refund.id, e.data.refundedAmount, e.data.status]),
    [
      [first.body.refund.id, 2_500, 'PAID'],
      [second.body.refund.id, 6_500, 'PAID'],
      [rest.body.refund.id, 10_000, 'REFUNDED'],
    ],
  );
  t.is((await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 1 })).status, 422, 'REFUNDED: nothing left');
});

test('a due-date charge is refunded in parts up to what was paid, its fee shared on that', async (t) => {
  const m = await createOnboardedMerchant(app);
  const dueDate = new Date(Date.now() + 60 * 86400_000).toISOString().slice(0, 10);
  const created = await m.http.post('/v1/charges', {
    amount: 10_000,
    description: 'Mensalidade',
    dueDate,
    rebate: { mode: 'FIXED', amount: 500 },
    customer: { name: 'Escola Aprender', document: '52998224725' },
  });
  t.is(created.status, 201);
  const due = created.body.charge;
  t.is(due.amountDue, 9_500);
  const n = { txid: due.txid, endToEndId: sandboxEndToEndId(), amount: 9_500, paidAt: new Date().toISOString() };
  t.deepEqual(await settlePayments(app.deps, app.orm.em.fork(), [n]), ['paid']);
  const paid = await chargeOf(m, due.id);
  t.like(paid, { status: 'PAID', paidAmount: 9_500 });
  const c = { id: due.id as string, amount: 9_500, fee: paid.fee as number, endToEndId: n.endToEndId };
  t.is(
    (await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 9_501 })).body.message.endsWith(': 9500 centavos'),
    true,
  );
  const part = (await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 4_000 })).body.refund;
  await complete(part.id);
  t.like(await chargeOf(m, c.id), { status: 'PAID', refundedAmount: 4_000 });
  const rest = (await m.http.post(`/v1/charges/${c.id}/refund`)).body.refund;
  t.is(rest.amount, 5_500);
  await complete(rest.id);
  t.like(await chargeOf(m, c.id), { status: 'REFUNDED', refundedAmount: 9_500 });
  t.deepEqual(await balance(m), { available: 0, blocked: 0, currency: 'BRL' });
  t.is(await feeKept(c), 0);
});

test('a FAILED refund gives its hold back and what it would have refunded is refundable again', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 8_000); // fee 79, net 7921
  const a = (await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 5_000 })).body.refund;
  t.deepEqual(await balance(m), { available: 7_921 - (5_000 - 49), blocked: 0, currency: 'BRL' }); // 49.375 -> 49
  await fail(a.id);
  t.deepEqual(await balance(m), { available: 7_921, blocked: 0, currency: 'BRL' });
  const [failed] = (await m.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds;
  t.like(failed, { id: a.id, status: 'FAILED', failureReason: 'Recusada' });
  t.like(await chargeOf(m, c.id), { status: 'PAID', refundedAmount: 0 });
  const all = await m.http.post(`/v1/charges/${c.id}/refunds`, {});
  t.is(all.body.refund.amount, 8_000);
  await complete(all.body.refund.id);
  t.like(await chargeOf(m, c.id), { status: 'REFUNDED', refundedAmount: 8_000 });
  t.deepEqual(await balance(m), { available: 0, blocked: 0, currency: 'BRL' });
  t.is(await feeKept(c), 0);
});

test('refused requests change nothing: bad input 400, over the remainder and late 422 naming why, others 404', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 6_000);
  await complete((await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 2_500 })).body.refund.id);
  const before = await stateOf(m, c);
  const post = (body: unknown) => m.http.post(`/v1/charges/${c.id}/refunds`, body);
  for (const body of [
    { amount: 0 },
    { amount: -1 },
    { amount: 1.5 },
    { amount: '100' },
    { amount: 1e300 },
    { reason: '' },
    { reason: '   ' },
    { reason: 'x'.repeat(141) },
    { reason: ['a'] },
  ]) {
    const res = await post(body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.errors[0].field, Object.keys(body)[0]);
  }
  const over = await post({ amount: 3_501 });
  t.is(over.status, 422);
  t.is(over.body.message, 'Valor acima do que ainda pode ser estornado desta cobrança: 3500 centavos');
  const other = await createOnboardedMerchant(app);
  t.is((await other.http.post(`/v1/charges/${c.id}/refunds`, { amount: 1 })).status, 404);
  t.is((await other.http.get(`/v1/charges/${c.id}/refunds`)).status, 404);
  t.is((await m.http.post('/v1/charges/not-a-uuid/refunds', {})).status, 404);
  const pending = (await m.http.post('/v1/charges', { amount: 100, description: 'x' })).body.charge;
  t.deepEqual(
    [(await m.http.post(`/v1/charges/${pending.id}/refunds`, {})).body.message],
    ['Apenas cobranças pagas podem ser estornadas'],
  );
  // 90 days after paidAt: a refund is still possible just before, refused just after
  await sql(`update charges set paid_at = now() - interval '90 days' + interval '1 minute' where id = ?`, [c.id]);
  const inTime = await post({ amount: 1 });
  t.is(inTime.status, 202);
  await fail(inTime.body.refund.id);
  const mid = await stateOf(m, c);
  await sql(`update charges set paid_at = now() - interval '90 days' - interval '1 minute' where id = ?`, [c.id]);
  const late = await post({ amount: 1 });
  t.deepEqual([late.status, late.body.message], [422, 'O prazo para estorno terminou: até 90 dias após o pagamento']);
  t.deepEqual((await stateOf(m, c)).balance, mid.balance);
  t.is((await stateOf(m, c)).refunds, mid.refunds);
  t.deepEqual({ ...before, refunds: before.refunds + 1, jobs: before.jobs + 1 }, { ...mid, charge: before.charge });
});

test('x-idempotency-key: a repeat answers 200 with the creation body, another body is 409, a race creates one', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 9_000);
  const key = { 'x-idempotency-key': `devolucao-${c.id}` };
  const created = await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 1_000, reason: 'Troca' }, key);
  t.is(created.status, 202);
  await complete(created.body.refund.id);
  const replay = await m.http.post(`/v1/charges/${c.id}/refunds`, { reason: 'Troca', amount: 1_000 }, key);
  t.is(replay.status, 200);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, created.body, "the creation's body, though the refund has completed since");
  t.is((await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 999, reason: 'Troca' }, key)).status, 409);
  const elsewhere = await paidCharge(m, 1_000);
  t.is((await m.http.post(`/v1/charges/${elsewhere.id}/refunds`, { amount: 1_000, reason: 'Troca' }, key)).status, 409);
  t.is((await m.http.post(`/v1/charges/${c.id}/refund`, undefined, { 'x-idempotency-key': '' })).status, 400);
  // the same new key sent ten times at once: one refund, nine replays of it
  const raceKey = { 'x-idempotency-key': `corrida-${c.id}` };
  const race = await Promise.all(
    Array.from({ length: 10 }, () => m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 500 }, raceKey)),
  );
  t.deepEqual(race.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 202]);
  t.is(new Set(race.map((r) => r.body.refund.id)).size, 1);
  t.is((await m.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds.length, 2);
});

test('20 concurrent partial refunds: several in progress at once, never more than the amount paid', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 10_000);
  await paidCharge(m, 50_000); // enough balance for every refund: only the charge's amount limits them
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 700 })),
  );
  const accepted = answers.filter((a) => a.status === 202);
  t.is(accepted.length, 14, '14 × 700 = 9800 fit in 10000, a 15th would not');
  for (const a of answers.filter((x) => x.status !== 202)) {
    t.is(a.status, 422);
    t.regex(a.body.message, /^Valor acima do que ainda pode ser estornado desta cobrança: (\d+) centavos$/);
  }
  const processing = (await m.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds;
  t.is(processing.filter((r: { status: string }) => r.status === 'PROCESSING').length, 14);
  // their completions race each other and more requests
  const more = await Promise.all([
    ...accepted.map((a) => complete(a.body.refund.id)),
    ...Array.from({ length: 5 }, () => m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 100 })),
  ]);
  const extra = more.filter((r) => r && typeof r === 'object' && 'status' in r && r.status === 202) as {
    body: { refund: { id: string } };
  }[];
  t.is(extra.length, 2, 'the 200 left: two of 100');
  for (const r of extra) await complete(r.body.refund.id);
  t.like(await chargeOf(m, c.id), { status: 'REFUNDED', refundedAmount: 10_000 });
  t.is(await feeKept(c), 0);
  t.deepEqual(await balance(m), { available: 49_505, blocked: 0, currency: 'BRL' });
});

test('property: any refunds, completed or failed in any order, return exactly the net and the fee', async (t) => {
  const m = await createOnboardedMerchant(app);
  // other money, so no piece is refused for balance: the last of many tiny ones may ask the merchant for more than
  // its share of what was left (refunds.money.ts)
  await paidCharge(m, 1_000_000);
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 50_000 }),
      fc.array(fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.boolean()), { minLength: 1, maxLength: 6 }),
      async (amount, steps) => {
        const before = (await balance(m)).available;
        const c = await paidCharge(m, amount);
        for (const [ask, fails] of steps) {
          const res = await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: ask });
          if (res.status === 422) continue; // over what is left
          if (res.status !== 202) throw new Error(`refund: ${res.status} ${JSON.stringify(res.body)}`);
          await (fails ? fail : complete)(res.body.refund.id);
        }
        const rest = await m.http.call('POST', `/v1/charges/${c.id}/refund`); // no body at all
        if (rest.status === 202) await complete(rest.body.refund.id);
        const after = await chargeOf(m, c.id);
        if (after.status !== 'REFUNDED' || after.refundedAmount !== amount) throw new Error(JSON.stringify(after));
        if ((await balance(m)).available !== before) throw new Error('the merchant did not give back exactly its net');
        if ((await feeKept(c)) !== 0) throw new Error('the platform did not give back exactly its fee');
      },
    ),
    { numRuns: 15 },
  );
  t.pass();
});

const acquirerMed = (c: Charge, id: string) =>
  applyAcquirerInfraction(app.deps, app.orm.em.fork(), {
    acquirerId: id,
    endToEndId: c.endToEndId,
    amount: c.amount,
    status: 'OPEN',
    reason: 'Golpe',
    deadlineAt: null,
  });

test('MED and refunds: an infraction disputes only what refunds do not take; no refund while it is open', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 10_000);
  await paidCharge(m, 20_000); // net 19802
  const part = (await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 3_000 })).body.refund;
  // the sandbox's MED waits for refunds in progress; the acquirer's opens for the rest
  const sandbox = await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, {});
  t.deepEqual([sandbox.status, sandbox.body.message], [409, 'Esta cobrança tem um estorno em andamento']);
  t.is(await acquirerMed(c, `med-partial-${c.id}`), 'opened');
  const [infraction] = (await m.http.get('/v1/infractions')).body.infractions;
  t.like(infraction, { chargeId: c.id, amount: 7_000, blockedAmount: 7_000 });
  const refused = await m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 100 });
  t.deepEqual(
    [refused.status, refused.body.message],
    [409, 'Cobrança com infração (MED) em aberto não pode ser estornada'],
  );
  // 9901 + 19802 - the refund's 2970 - the block of 7000
  t.deepEqual(await balance(m), { available: 19_733, blocked: 7_000, currency: 'BRL' });
  // the MED accepted while the refund completes: each takes its own part, once
  await Promise.all([complete(part.id), decide(app.deps, app.orm.em.fork(), infraction.id, 'accept')]);
  t.like(await chargeOf(m, c.id), { status: 'REFUNDED', refundedAmount: 3_000 });
  t.deepEqual(await balance(m), { available: 19_733, blocked: 0, currency: 'BRL' });
  const refunded = await sql<{ data: { refund: { id: string } | null } }>(
    `select data from events where merchant_id = ? and type = 'charge.refunded'`,
    [m.merchantId],
  );
  t.deepEqual(refunded.map((e) => e.data.refund?.id ?? null).sort(), [part.id, null].sort());
});

test('MED opening racing partial refunds: the disputed and the refunded never exceed the charge', async (t) => {
  for (let round = 0; round < 5; round++) {
    const m = await createOnboardedMerchant(app);
    const c = await paidCharge(m, 10_000);
    await paidCharge(m, 30_000);
    const [answers, opened] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => m.http.post(`/v1/charges/${c.id}/refunds`, { amount: 2_000 }))),
      acquirerMed(c, `med-race-${round}-${c.id}`),
    ]);
    t.deepEqual(
      answers.filter((a) => ![202, 409, 422].includes(a.status)).map((a) => a.status),
      [],
    );
    const refunded = answers.filter((a) => a.status === 202).length * 2_000;
    const [i] = await sql<{ amount: number }>('select amount from infractions where charge_id = ?', [c.id]);
    t.true(refunded + (i?.amount ?? 0) <= 10_000, `round ${round}: ${refunded} + ${i?.amount} (${opened})`);
    if (opened === 'opened') t.is(refunded + i.amount, 10_000, 'the MED took what the refunds left');
  }
});

test('a withdrawal and a refund after the same balance: one wins, the other is 422, never below zero', async (t) => {
  for (let round = 0; round < 6; round++) {
    const m = await createOnboardedMerchant(app);
    const c = await paidCharge(m, 10_000); // net 9901: the whole balance
    const [withdrawal, refund] = await Promise.all([
      m.http.post('/v1/merchants/me/withdrawals', {
        amount: 9_901,
        pixKeyType: 'EMAIL',
        pixKey: 'destino@example.com',
      }),
      m.http.post(`/v1/charges/${c.id}/refunds`, {}),
    ]);
    const won = withdrawal.status === 201 ? 'withdrawal' : refund.status === 202 ? 'refund' : 'none';
    t.true(won !== 'none', `round ${round}: ${withdrawal.status} ${refund.status}`);
    const loser = won === 'withdrawal' ? refund : withdrawal;
    t.is(loser.status, 422);
    t.is(loser.body.message, 'Saldo insuficiente');
    t.deepEqual(await balance(m), { available: 0, blocked: 0, currency: 'BRL' });
  }
});
