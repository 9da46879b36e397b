import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { fund } from './withdrawals.helpers.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { accounts } from '../src/ledger/ledger.service.ts';
import { settlePayments } from '../src/payments/settlement.ts';
import { applyRefundResult } from '../src/refunds/refunds.states.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { KIND_TYPES } from '../src/ledger/statement.ts';

// The statement under concurrency and over random histories: whatever runs at once, each merchant's statement is
// numbered without gaps, each balanceAfter is the running sum, and it sums to available + blocked; no centavo is
// created or lost. No worker: the tests settle payments and answer refunds themselves. Serial: the property counts the
// platform's accounts, which the other test moves too.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

type Merchant = Awaited<ReturnType<typeof createMerchant>>;
type Entry = { amount: number; balanceAfter: number; type: string };
const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) => app.orm.em.fork().execute<T[]>(q, params);
const balance = async (m: Merchant) => (await m.http.get('/v1/merchants/me/balance')).body;
const recipient = () => createMerchant(app, { kyc: 'APPROVED' });
const complete = (id: string) => applyRefundResult(app.deps, id, { status: 'COMPLETED' });
const fail = (id: string) => applyRefundResult(app.deps, id, { status: 'FAILED', failureReason: 'Recusada' });

// Every page of a merchant's statement, newest first.
async function wholeStatement(m: Merchant): Promise<{ total: number; entries: Entry[] }> {
  const entries: Entry[] = [];
  let total = 0;
  for (let page = 1; ; page++) {
    const res = await m.http.get(`/v1/merchants/me/statement?limit=100&page=${page}`);
    if (res.status !== 200) throw new Error(`statement: ${res.status}`);
    total = res.body.total;
    entries.push(...res.body.entries);
    if (res.body.entries.length < 100) return { total, entries };
  }
}

// The statement is whole and exact: total lines, each balanceAfter the running sum (never below 0), the sum the balance.
async function exact(m: Merchant): Promise<boolean> {
  const { total, entries } = await wholeStatement(m);
  const b = await balance(m);
  let running = 0;
  for (const e of [...entries].reverse()) if (e.balanceAfter !== (running += e.amount) || running < 0) return false;
  return total === entries.length && running === b.available + b.blocked;
}

async function ledgerClean(t: ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report));
  // and every kind in the books is one the statement knows
  for (const { kind } of await sql<{ kind: string }>('select distinct kind from ledger_transactions'))
    t.true(kind in KIND_TYPES, kind);
}

async function createCharge(owner: Merchant, body: object) {
  const res = await owner.http.post('/v1/charges', { description: 'Pedido', ...body });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.charge as { id: string; txid: string; amount: number; fee: number };
}
const settle = (cs: { txid: string; amount: number }[]) =>
  settlePayments(
    app.deps,
    app.orm.em.fork(),
    cs.map((c) => ({
      txid: c.txid,
      endToEndId: sandboxEndToEndId(),
      amount: c.amount,
      paidAt: new Date().toISOString(),
    })),
  );
const withdraw = (m: Merchant, amount: number) =>
  m.http.post('/v1/merchants/me/withdrawals', { amount, pixKey: 'r@example.com', pixKeyType: 'EMAIL' });

test.serial(
  'concurrency: payments splitting to the same recipients, their withdrawals and refunds reversing splits, all at once: every statement exact',
  async (t) => {
    const owners = [await createOnboardedMerchant(app), await createOnboardedMerchant(app)];
    const [r1, r2] = [await recipient(), await recipient()];
    for (const o of owners) await fund(app, o.merchantId, 1_000_000);
    await fund(app, r1.merchantId, 500);
    const splits = (i: number) =>
      i % 2
        ? [
            { merchantId: r1.merchantId, amount: 1000 },
            { merchantId: r2.merchantId, bps: 2500 },
          ]
        : [
            { merchantId: r2.merchantId, amount: 700 },
            { merchantId: r1.merchantId, bps: 1000 },
          ];
    // 12 charges paid in 12 settlement transactions at once, while the recipients withdraw
    const charges = [];
    for (let i = 0; i < 12; i++)
      charges.push(await createCharge(owners[i % 2], { amount: 5000 + i, splits: splits(i) }));
    const paid = await Promise.all([
      ...charges.map((c) => settle([c]).then(([o]) => o)),
      ...[r1, r2, r1, r2].map((r) => withdraw(r, 300).then((x) => x.status)),
    ]);
    t.deepEqual(paid.slice(0, 12), Array(12).fill('paid'));
    for (const s of paid.slice(12)) t.true(s === 201 || s === 422);
    // refunds reversing splits race the recipients' withdrawals of everything they have
    const [b1, b2] = [await balance(r1), await balance(r2)];
    const raced = await Promise.all([
      ...charges.map((c, i) =>
        owners[i % 2].http
          .post(`/v1/charges/${c.id}/refunds`, { amount: 2000, reverseSplits: true })
          .then((x) => ({ status: x.status, id: x.body.refund?.id as string | undefined })),
      ),
      withdraw(r1, b1.available).then((x) => ({ status: x.status, id: undefined })),
      withdraw(r2, b2.available).then((x) => ({ status: x.status, id: undefined })),
    ]);
    for (const { status } of raced) t.true([201, 202, 422].includes(status), String(status));
    // half the refunds complete, half fail (their holds given back), at once
    await Promise.all(raced.flatMap(({ id }, i) => (id ? [i % 2 ? complete(id) : fail(id)] : [])));
    for (const m of [...owners, r1, r2]) t.true(await exact(m));
    const r1Lines = (await wholeStatement(r1)).entries.map((e) => e.type);
    t.is(r1Lines.filter((x) => x === 'SPLIT_RECEIVED').length, 12);
    await ledgerClean(t);
  },
);

test.serial(
  'property: random charges, fees, splits, refunds (reversing or not, completed or failed) and withdrawals: each statement sums to its balance, and no centavo is created or lost',
  async (t) => {
    const pool = [await createOnboardedMerchant(app), await createOnboardedMerchant(app), await recipient()];
    const ids = pool.map((m) => m.merchantId);
    const books = async () => {
      const rows = await sql<{ code: string; balance: string }>(
        'select code, balance from ledger_accounts where code = any(?::text[])',
        [`{${accounts.platformFees},${accounts.refundsInProgress}}`],
      );
      return rows.reduce((s, r) => s + Number(r.balance), 0);
    };
    const start = await books();
    let moneyIn = 0; // paid by payers
    let moneyOut = 0; // refunded to payers and withdrawn
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('charge' as const),
        owner: fc.integer({ min: 0, max: 1 }),
        amount: fc.integer({ min: 1, max: 50_000 }),
        feeBps: fc.integer({ min: 0, max: 2000 }),
        feeFixed: fc.integer({ min: 0, max: 200 }),
        splitBps: fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 0, maxLength: 2 }),
      }),
      fc.record({
        kind: fc.constant('refund' as const),
        which: fc.nat(),
        part: fc.integer({ min: 1, max: 100 }),
        reverse: fc.boolean(),
        ok: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('withdraw' as const),
        who: fc.integer({ min: 0, max: 2 }),
        part: fc.integer({ min: 1, max: 100 }),
      }),
    );
    const paidCharges: { id: string; owner: number; amount: number }[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        for (const o of ops) {
          if (o.kind === 'charge') {
            await sql('update merchants set fee_bps = ?, fee_fixed = ? where id = ?', [
              o.feeBps,
              o.feeFixed,
              ids[o.owner],
            ]);
            const others = [0, 1, 2].filter((i) => i !== o.owner);
            const splits = o.splitBps.map((bps, i) => ({ merchantId: ids[others[i]], bps }));
            const res = await pool[o.owner].http.post('/v1/charges', { description: 'x', amount: o.amount, splits });
            if (res.status !== 201) continue; // the fee may leave no net to split: refused, nothing happened
            const [outcome] = await settle([res.body.charge]);
            if (outcome !== 'paid') return false;
            moneyIn += o.amount;
            paidCharges.push({ id: res.body.charge.id, owner: o.owner, amount: o.amount });
          } else if (o.kind === 'refund' && paidCharges.length) {
            const c = paidCharges[o.which % paidCharges.length];
            const read = (await pool[c.owner].http.get(`/v1/charges/${c.id}`)).body.charge;
            const left = read.amount - read.refundedAmount;
            if (left <= 0) continue;
            const amount = Math.max(1, Math.floor((left * o.part) / 100));
            const res = await pool[c.owner].http.post(`/v1/charges/${c.id}/refunds`, {
              amount,
              reverseSplits: o.reverse,
            });
            if (res.status !== 202) continue; // a balance that cannot cover it, or another refund in the way
            if (o.ok) {
              await complete(res.body.refund.id);
              moneyOut += amount;
            } else await fail(res.body.refund.id);
          } else if (o.kind === 'withdraw') {
            const { available } = await balance(pool[o.who]);
            const amount = Math.floor((available * o.part) / 100);
            if (amount < 1) continue;
            const w = await withdraw(pool[o.who], amount);
            if (w.status !== 201) throw new Error(`withdrawal ${amount}: ${w.status} ${JSON.stringify(w.body)}`);
            moneyOut += amount;
          }
        }
        let merchants = 0;
        for (const m of pool) {
          if (!(await exact(m)))
            throw new Error(`inexact ${JSON.stringify(await wholeStatement(m))} ${JSON.stringify(await balance(m))}`);
          merchants += (await wholeStatement(m)).entries.reduce((s, e) => s + e.amount, 0);
        }
        // what payers paid, less what went back to them or out to the merchants' banks, is all still held here
        if (merchants + (await books()) - start !== moneyIn - moneyOut)
          throw new Error(`lost ${merchants} ${await books()} ${start} ${moneyIn} ${moneyOut}`);
        return true;
      }),
      { numRuns: 12 },
    );
    await ledgerClean(t);
  },
);
