// Refunds, their completions and MED racing each other on one charge (and one merchant), with truly concurrent requests
// and transactions: one lock order (charge, refunds, infractions, ledger accounts) means no deadlock reaches anyone,
// none ever answers 500, the merchant never gives the same money back twice, and the ledger stays clean.
import test from 'ava';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { waitFor } from './withdrawals.helpers.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { settlePayments } from '../src/payments/settlement.ts';
import { applyRefundResult } from '../src/refunds/refunds.states.ts';
import { applyAcquirerInfraction, decide, openInfraction } from '../src/infractions/infractions.states.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { transactional } from '../src/platform/transaction.ts';
import { CONFLICT_RETRY, errorHandler, requestLogger } from '../src/platform/http.ts';
import { createLogger } from '../src/platform/logger.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

type Merchant = Awaited<ReturnType<typeof createOnboardedMerchant>>;
const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);
const balance = async (m: Merchant) => (await m.http.get('/v1/merchants/me/balance')).body;

async function ledgerClean(t: import('ava').ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
}

// A PAID charge, settled as the worker would settle its payment (no worker runs unless a test starts one).
async function paidCharge(m: Merchant, amount: number) {
  const c = (await m.http.post('/v1/charges', { amount, description: 'Pedido' })).body.charge;
  const n = { txid: c.txid, endToEndId: sandboxEndToEndId(), amount, paidAt: new Date().toISOString() };
  const [outcome] = await settlePayments(app.deps, app.orm.em.fork(), [n]);
  if (outcome !== 'paid') throw new Error(`not paid: ${outcome}`);
  return { id: c.id as string, amount, fee: c.fee as number, endToEndId: n.endToEndId };
}

const refundsOf = (chargeId: string) =>
  sql<{ id: string; status: string; amount: string }>(
    'select id, status, amount from refunds where charge_id = ? order by created_at, id',
    [chargeId],
  );
const complete = (refundId: string) => applyRefundResult(app.deps, refundId, { status: 'COMPLETED' });
const fail = (refundId: string) => applyRefundResult(app.deps, refundId, { status: 'FAILED', failureReason: 'teste' });
const requestRefunds = (m: Merchant, chargeId: string, n: number) =>
  Array.from({ length: n }, () => m.http.post(`/v1/charges/${chargeId}/refund`));

test.serial(
  '20 concurrent refunds of one charge while the worker completes them: one refund, never a 500',
  async (t) => {
    const stopWorker = await startBackground(app, 'worker');
    t.teardown(stopWorker);
    for (let round = 0; round < 4; round++) {
      const m = await createOnboardedMerchant(app);
      const c = await paidCharge(m, 10_000);
      const answers = await Promise.all(requestRefunds(m, c.id, 20));
      const statuses = answers.map((a) => a.status);
      t.deepEqual(
        [...new Set(statuses)].filter((s) => ![202, 409, 422].includes(s)),
        [],
        JSON.stringify(statuses),
      );
      t.is(statuses.filter((s) => s === 202).length, 1, JSON.stringify(statuses));
      await waitFor(
        'REFUNDED',
        async () => (await m.http.get(`/v1/charges/${c.id}`)).body.charge.status === 'REFUNDED',
      );
      t.deepEqual(
        (await refundsOf(c.id)).map((r) => r.status),
        ['COMPLETED'],
      );
      t.deepEqual(await balance(m), { available: 0, blocked: 0, currency: 'BRL' });
    }
    await ledgerClean(t);
  },
);

test.serial(
  'refunds racing their completions: each completion takes the charge first, requests never see a 500',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await paidCharge(m, 5_000);
    let current = (await m.http.post(`/v1/charges/${c.id}/refund`)).body.refund.id as string;
    for (let round = 0; round < 8; round++) {
      const last = round === 7;
      const [answers] = await Promise.all([
        Promise.all(requestRefunds(m, c.id, 8)),
        last ? complete(current) : fail(current),
      ]);
      t.deepEqual(
        answers.filter((a) => ![202, 409, 422].includes(a.status)).map((a) => a.status),
        [],
      );
      const processing = (await refundsOf(c.id)).filter((r) => r.status === 'PROCESSING');
      t.true(processing.length <= 1);
      if (processing.length === 0 && !last) {
        const again = await m.http.post(`/v1/charges/${c.id}/refund`);
        t.is(again.status, 202);
        current = again.body.refund.id;
      } else if (processing.length) current = processing[0].id;
    }
    for (const r of (await refundsOf(c.id)).filter((x) => x.status === 'PROCESSING')) await complete(r.id);
    const refunds = await refundsOf(c.id);
    t.is(refunds.filter((r) => r.status === 'COMPLETED').length, 1, JSON.stringify(refunds));
    t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'REFUNDED');
    t.deepEqual(await balance(m), { available: 0, blocked: 0, currency: 'BRL' });
    await ledgerClean(t);
  },
);

const acquirerMed = (c: { endToEndId: string; amount: number }, id: string, status: 'OPEN' | 'ACCEPTED' = 'OPEN') =>
  applyAcquirerInfraction(app.deps, app.orm.em.fork(), {
    acquirerId: id,
    endToEndId: c.endToEndId,
    amount: c.amount,
    status,
    reason: 'Golpe',
    deadlineAt: null,
  });

test.serial("an acquirer's MED on a charge whose refund is in flight never debits the merchant twice", async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 10_000); // net 9901
  await paidCharge(m, 20_000); // other money the MED could have blocked: net 19802
  const refund = (await m.http.post(`/v1/charges/${c.id}/refund`)).body.refund;
  t.deepEqual(await balance(m), { available: 19_802, blocked: 0, currency: 'BRL' });
  // nothing left to dispute: not opened (the acquirer's next listing tries again)
  t.is(await acquirerMed(c, 'med-in-flight'), 'unchanged');
  t.deepEqual(await balance(m), { available: 19_802, blocked: 0, currency: 'BRL' }, 'nothing blocked');
  await complete(refund.id);
  // the acquirer accepts its MED: the devolução already gave the payer everything, the charge is REFUNDED
  t.is(await acquirerMed(c, 'med-in-flight', 'ACCEPTED'), 'unchanged');
  t.deepEqual(await balance(m), { available: 19_802, blocked: 0, currency: 'BRL' }, 'debited once, by the refund');
  t.is((await sql('select 1 from infractions where charge_id = ?', [c.id])).length, 0);
  await ledgerClean(t);
});

test.serial("a refund that fails gives the acquirer's MED something to dispute: it opens then, for that", async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await paidCharge(m, 10_000);
  const refund = (await m.http.post(`/v1/charges/${c.id}/refund`)).body.refund;
  t.is(await acquirerMed(c, 'med-after-fail'), 'unchanged');
  await fail(refund.id);
  t.is(await acquirerMed(c, 'med-after-fail'), 'opened');
  t.deepEqual(await balance(m), { available: 0, blocked: 9_901, currency: 'BRL' });
  t.is(await acquirerMed(c, 'med-after-fail', 'ACCEPTED'), 'updated');
  t.deepEqual(await balance(m), { available: 0, blocked: 0, currency: 'BRL' });
  t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'REFUNDED');
  await ledgerClean(t);
});

test.serial(
  'MED openings racing refund requests on one charge: one of them wins, the money goes back once',
  async (t) => {
    for (let round = 0; round < 6; round++) {
      const m = await createOnboardedMerchant(app);
      const c = await paidCharge(m, 8_000); // net 7921
      await paidCharge(m, 3_000); // net 2970
      const med = `med-race-${round}-${Date.now()}`;
      const [refunds, opened] = await Promise.all([Promise.all(requestRefunds(m, c.id, 5)), acquirerMed(c, med)]);
      const accepted = refunds.filter((r) => r.status === 202);
      t.deepEqual(
        refunds.filter((r) => ![202, 409, 422].includes(r.status)).map((r) => r.status), // 422: nothing left
        [],
      );
      t.is(accepted.length + (opened === 'opened' ? 1 : 0), 1, `${opened} ${refunds.map((r) => r.status)}`);
      // both outcomes arrive: the devolução completes, the acquirer accepts its MED
      for (const r of accepted) await complete(r.body.refund.id);
      await acquirerMed(c, med, 'ACCEPTED');
      // the refund takes the net back from the merchant (the platform gives its fee); an accepted MED the whole amount
      const left = opened === 'opened' ? 7_921 + 2_970 - 8_000 : 2_970;
      t.deepEqual(await balance(m), { available: left, blocked: 0, currency: 'BRL' }, `round ${round}: ${opened}`);
      t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'REFUNDED');
    }
    await ledgerClean(t);
  },
);

test.serial(
  'MED decisions racing refund completions and payments of one merchant: no deadlock reaches anyone',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    await paidCharge(m, 100_000); // net 99010: every block and hold is covered, whatever the order
    const disputed = await Promise.all(Array.from({ length: 4 }, () => paidCharge(m, 1_000)));
    const refunded = await Promise.all(Array.from({ length: 4 }, () => paidCharge(m, 2_000)));
    const infractions = [];
    for (const c of disputed)
      infractions.push(await openInfraction(app.deps, app.orm.em.fork(), { chargeId: c.id, reason: 'Golpe' }));
    const refunds = [];
    for (const c of refunded) refunds.push((await m.http.post(`/v1/charges/${c.id}/refund`)).body.refund.id);
    const pending = await Promise.all(
      Array.from(
        { length: 4 },
        async () => (await m.http.post('/v1/charges', { amount: 500, description: 'x' })).body.charge,
      ),
    );
    await Promise.all([
      ...infractions.map((i) => decide(app.deps, app.orm.em.fork(), i.id, 'accept')),
      ...refunds.map(complete),
      ...pending.map((c) =>
        settlePayments(app.deps, app.orm.em.fork(), [
          { txid: c.txid, endToEndId: sandboxEndToEndId(), amount: 500, paidAt: new Date().toISOString() },
        ]),
      ),
    ]);
    const available = 99_010 + 4 * 990 - 4 * 1_000 + 4 * (500 - 5); // the MEDs take whole amounts, refunds their nets
    t.deepEqual(await balance(m), { available, blocked: 0, currency: 'BRL' });
    await ledgerClean(t);
  },
);

test.serial('a deadlock or a serialization failure is run again; one that conflicts every time is a 409', async (t) => {
  await sql('create table if not exists race_rows (id int primary key, n int not null)');
  await sql('insert into race_rows values (1, 0), (2, 0) on conflict (id) do update set n = 0');
  // two transactions taking two rows in opposite orders, each waiting for the other: PostgreSQL aborts one (40P01).
  // A barrier (first attempts only) makes both hold their first row before either asks for its second, however slow
  // the machine.
  let attempts = 0;
  const barrier = (parties: number) => {
    let arrived = 0;
    let release!: () => void;
    const all = new Promise<void>((r) => (release = r));
    return () => (++arrived === parties && release(), all);
  };
  const crosswise = (first: number, second: number, meet: () => Promise<void>, opts: { attempts?: number } = {}) => {
    let mine = 0;
    return transactional(
      app.orm.em.fork(),
      async (tx) => {
        attempts++;
        await tx.execute('update race_rows set n = n + 1 where id = ?', [first]);
        if (++mine === 1) await meet();
        await tx.execute('update race_rows set n = n + 1 where id = ?', [second]);
      },
      opts,
    );
  };
  const pair = (opts: { attempts?: number } = {}) => {
    const meet = barrier(2);
    return Promise.all([crosswise(1, 2, meet, opts), crosswise(2, 1, meet, opts)]);
  };
  await pair();
  t.true(attempts >= 3, `the loser ran again (${attempts} attempts)`);
  t.deepEqual(
    (await sql<{ n: number }>('select n from race_rows order by id')).map((r) => r.n),
    [2, 2],
  );
  // serializable transactions reading what the other writes: PostgreSQL aborts one (40001), it runs again
  const read = barrier(2);
  const skew = (id: number) => {
    let mine = 0;
    return transactional(
      app.orm.em.fork(),
      async (tx) => {
        const [{ s }] = await tx.execute<{ s: number }[]>('select sum(n)::int as s from race_rows');
        if (++mine === 1) await read(); // both read before either writes
        await tx.execute('update race_rows set n = ? where id = ?', [s + 1, id]);
      },
      { isolationLevel: 'serializable' },
    );
  };
  await Promise.all([skew(1), skew(2)]);
  const [a, b] = (await sql<{ n: number }>('select n from race_rows order by id')).map((r) => r.n);
  t.true((a === 5 && b === 8) || (a === 8 && b === 5), `one ran after the other: ${a}, ${b}`);
  // one that conflicts on its every attempt: the API's answer is 409, never a 500
  const server = express()
    .use(requestLogger(createLogger('silent', 'test')))
    .post('/race', async (_req, res) => {
      await pair({ attempts: 1 });
      res.json({});
    })
    .use(errorHandler)
    .listen(0, '127.0.0.1');
  t.teardown(() => server.close());
  await new Promise((r) => server.once('listening', r));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/race`, { method: 'POST' });
  t.is(res.status, 409);
  t.deepEqual(await res.json(), { code: 'transaction_conflict', message: CONFLICT_RETRY });
});
