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
import { platformFee } from '../src/money/money.ts';
import { resolveSplits, splitsFit, type SplitInput } from '../src/money/splits.ts';
import { refundPostings } from '../src/refunds/refunds.money.ts';
import { refundFee, refundSplitShares, type SplitShare } from '../src/money/refund-shares.ts';

// Refunds of charges with splits, `reverseSplits` above all, on the real API and database. No worker runs here: the
// tests settle payments and apply the acquirer's answers to refunds themselves, so a refund stays PROCESSING until they
// say; every test leaves a ledger that ledger:verify finds clean.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

type Merchant = Awaited<ReturnType<typeof createMerchant>>;
const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) => app.orm.em.fork().execute<T[]>(q, params);
const balance = async (m: Merchant) => (await m.http.get('/v1/merchants/me/balance')).body;
const available = async (m: Merchant) => (await balance(m)).available as number;
const recipient = () => createMerchant(app, { kyc: 'APPROVED' });
const complete = (id: string) => applyRefundResult(app.deps, id, { status: 'COMPLETED' });
const fail = (id: string) => applyRefundResult(app.deps, id, { status: 'FAILED', failureReason: 'Recusada' });

async function ledgerClean(t: ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report));
}

// A charge created through the API and paid as the worker would settle it.
async function paidCharge(owner: Merchant, body: object) {
  const res = await owner.http.post('/v1/charges', { description: 'Pedido', ...body });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  const c = res.body.charge;
  const n = { txid: c.txid, endToEndId: sandboxEndToEndId(), amount: c.amount, paidAt: new Date().toISOString() };
  const [outcome] = await settlePayments(app.deps, app.orm.em.fork(), [n]);
  if (outcome !== 'paid') throw new Error(`payment: ${outcome}`);
  return c as { id: string; amount: number; fee: number; splits: { merchantId: string; amount: number }[] };
}

const refund = (owner: Merchant, chargeId: string, body: object, headers?: Record<string, string>) =>
  owner.http.post(`/v1/charges/${chargeId}/refunds`, body, headers);

test('the three-party sale refunded in two parts with reverseSplits: each recipient gives its share back, exactly', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const [seller, courier] = [await recipient(), await recipient()];
  const c = await paidCharge(owner, {
    amount: 10_000,
    splits: [
      { merchantId: seller.merchantId, amount: 7000 },
      { merchantId: courier.merchantId, bps: 1000 },
    ],
  });
  t.deepEqual([await available(owner), await available(seller), await available(courier)], [1911, 7000, 990]);

  // 3000 of 10000: the platform gives 30 of its 99 (29.7), the seller 2100, the courier 297 (297.0), the owner 573
  const part = await refund(owner, c.id, { amount: 3000, reason: 'Produto devolvido', reverseSplits: true });
  t.is(part.status, 202);
  t.like(part.body.refund, { amount: 3000, status: 'PROCESSING', reverseSplits: true });
  t.deepEqual(part.body.refund.splits, [
    { merchantId: seller.merchantId, amount: 2100 },
    { merchantId: courier.merchantId, amount: 297 },
  ]);
  // held while PROCESSING, from each of them
  t.deepEqual([await available(owner), await available(seller), await available(courier)], [1338, 4900, 693]);
  await complete(part.body.refund.id);
  t.deepEqual([await available(owner), await available(seller), await available(courier)], [1338, 4900, 693]);

  // the rest (7000, the last piece): what is left of each split, 69 of the fee, 1338 from the owner
  const rest = await refund(owner, c.id, { reverseSplits: true });
  t.is(rest.status, 202);
  t.deepEqual(rest.body.refund.splits, [
    { merchantId: seller.merchantId, amount: 4900 },
    { merchantId: courier.merchantId, amount: 693 },
  ]);
  await complete(rest.body.refund.id);
  t.deepEqual([await available(owner), await available(seller), await available(courier)], [0, 0, 0]);
  const charge = (await owner.http.get(`/v1/charges/${c.id}`)).body.charge;
  t.like(charge, { status: 'REFUNDED', refundedAmount: 10_000 });
  t.like(charge.refund, { id: rest.body.refund.id, reverseSplits: true });
  const list = (await owner.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds;
  t.deepEqual(
    list.map((r: { amount: number; splits: SplitShare[] }) => [r.amount, r.splits.map((s) => s.amount)]),
    [
      [7000, [4900, 693]],
      [3000, [2100, 297]],
    ],
  );
  // charge.refunded twice, to the owner only; nothing to the recipients
  const events = await sql(`select merchant_id, type from events where data->>'id' = ?`, [c.id]);
  t.deepEqual(
    events.map((e) => [e.merchant_id, e.type]).filter(([, type]) => type === 'charge.refunded'),
    [
      [owner.merchantId, 'charge.refunded'],
      [owner.merchantId, 'charge.refunded'],
    ],
  );
  t.false(events.some((e) => e.merchant_id !== owner.merchantId));
  const [fees] = await sql(`select balance from ledger_accounts where code = ?`, [accounts.platformFees]);
  t.truthy(fees);
  await ledgerClean(t);
});

test('without reverseSplits the owner bears the refund; a FAILED reversing refund gives each its share back', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const r = await recipient();
  const c = await paidCharge(owner, { amount: 10_000, splits: [{ merchantId: r.merchantId, bps: 5000 }] }); // 4951
  t.is(await available(owner), 4950);
  // the owner bears 2000: it gives 2000 - 20 (its share of the fee is the platform's)
  const borne = await refund(owner, c.id, { amount: 2000 });
  t.like(borne.body.refund, { reverseSplits: false, splits: [] });
  t.deepEqual([await available(owner), await available(r)], [4950 - 1980, 4951]);
  await complete(borne.body.refund.id);

  const reversing = await refund(owner, c.id, { amount: 2000, reverseSplits: true });
  t.deepEqual(reversing.body.refund.splits, [{ merchantId: r.merchantId, amount: 990 }]); // 4951 * 0.2 = 990.2
  t.deepEqual([await available(owner), await available(r)], [2970 - 990, 4951 - 990]);
  await fail(reversing.body.refund.id);
  t.deepEqual([await available(owner), await available(r)], [2970, 4951]);

  // the failed one took nothing: the next reversing refund is reckoned as if it never was; and since a piece was
  // borne by the owner, no reversing refund takes the remainder: the recipient keeps 4951 - its pro rata shares
  await fund(app, owner.merchantId, 5000); // its part of the rest (3960) is more than it holds
  const last = await refund(owner, c.id, { reverseSplits: true }); // 8000 left
  t.deepEqual(last.body.refund.splits, [{ merchantId: r.merchantId, amount: 3961 }]); // 3960.8
  await complete(last.body.refund.id);
  t.is(await available(r), 4951 - 3961);
  t.is((await owner.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'REFUNDED');
  await ledgerClean(t);
});

test('422 naming a recipient that cannot give its share back (spent, or owed to MED); nothing changes', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const r = await createOnboardedMerchant(app); // takes charges of its own, so it can owe a MED infraction
  const c = await paidCharge(owner, { amount: 10_000, splits: [{ merchantId: r.merchantId, amount: 6000 }] });
  // the recipient withdrew most of it
  const w = await r.http.post('/v1/merchants/me/withdrawals', {
    amount: 5000,
    pixKey: 'r@example.com',
    pixKeyType: 'EMAIL',
  });
  t.is(w.status, 201);
  const refused = await refund(owner, c.id, { amount: 5000, reverseSplits: true }); // the recipient's share: 3000
  t.deepEqual(
    [refused.status, refused.body],
    [
      422,
      {
        code: 'recipient_insufficient_balance',
        message: `Saldo insuficiente do recebedor ${r.merchantId} para devolver sua parte do estorno (3000 centavos)`,
      },
    ],
  );
  t.deepEqual([await available(owner), await available(r)], [3901, 1000]);
  t.is((await owner.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds.length, 0);
  // what it can cover passes: 1000 of 6000 is 1/6 of the split, a refund of 1666 (999.6 -> 1000)
  const small = await refund(owner, c.id, { amount: 1666, reverseSplits: true });
  t.is(small.status, 202);
  t.deepEqual(small.body.refund.splits, [{ merchantId: r.merchantId, amount: 1000 }]);
  t.is(await available(r), 0);
  await complete(small.body.refund.id);
  // the owner bearing it alone is refused with the usual message when its balance cannot cover it
  const own = await refund(owner, c.id, { amount: 8000 });
  t.deepEqual([own.status, own.body], [422, { code: 'insufficient_balance', message: 'Saldo insuficiente' }]);

  // a recipient whose open MED infractions are owed more than it holds: its new credit is out of reach
  const mine = await paidCharge(r, { amount: 20_000 });
  const spent = { amount: 19_000, pixKey: 'r@example.com', pixKeyType: 'EMAIL' };
  t.is((await r.http.post('/v1/merchants/me/withdrawals', spent)).status, 201);
  const opened = await r.http.post(`/v1/sandbox/charges/${mine.id}/infraction`, { reason: 'Golpe' });
  t.is(opened.status, 201);
  t.true(opened.body.infraction.amount > opened.body.infraction.blockedAmount); // a shortfall is owed
  const c2 = await paidCharge(owner, { amount: 10_000, splits: [{ merchantId: r.merchantId, amount: 3000 }] });
  t.is(await available(r), 3000); // no worker here: the cover has not blocked it yet
  const owed = await refund(owner, c2.id, { amount: 1000, reverseSplits: true });
  t.deepEqual(
    [owed.status, owed.body],
    [
      422,
      {
        code: 'recipient_insufficient_balance',
        message: `Saldo insuficiente do recebedor ${r.merchantId} para devolver sua parte do estorno (300 centavos)`,
      },
    ],
  );
  t.is(await available(r), 3000);
  await ledgerClean(t);
});

test('reverseSplits is a JSON boolean, part of the body an idempotency key fingerprints; fine on a charge without splits', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const r = await recipient();
  const c = await paidCharge(owner, { amount: 5000, splits: [{ merchantId: r.merchantId, amount: 1000 }] });
  for (const bad of ['true', 1, {}, []]) {
    const res = await refund(owner, c.id, { amount: 100, reverseSplits: bad });
    t.is(res.status, 400);
    t.deepEqual(res.body.errors, [{ field: 'reverseSplits', message: 'reverseSplits deve ser true ou false' }]);
  }
  const key = { 'x-idempotency-key': 'devolucao-1' };
  const first = await refund(owner, c.id, { amount: 100, reverseSplits: true }, key);
  t.is(first.status, 202);
  const again = await refund(owner, c.id, { amount: 100, reverseSplits: true }, key);
  t.is(again.status, 200);
  t.deepEqual(again.body.refund, first.body.refund);
  t.is((await refund(owner, c.id, { amount: 100 }, key)).status, 409);
  // false is the same request as none
  const k2 = { 'x-idempotency-key': 'devolucao-2' };
  t.is((await refund(owner, c.id, { amount: 100, reverseSplits: false }, k2)).status, 202);
  t.is((await refund(owner, c.id, { amount: 100 }, k2)).status, 200);
  // a charge without splits: nothing to reverse, the refund is the owner's as always
  const plain = await paidCharge(owner, { amount: 1000 });
  const res = await refund(owner, plain.id, { reverseSplits: true });
  t.is(res.status, 202);
  t.like(res.body.refund, { amount: 1000, reverseSplits: true, splits: [] });
  for (const x of (await owner.http.get(`/v1/charges/${c.id}/refunds`)).body.refunds) await complete(x.id);
  await complete(res.body.refund.id);
  await ledgerClean(t);
});

test('concurrency: refunds reversing splits race the recipient withdrawing: it never goes below zero, every centavo accounted', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const r = await recipient();
  await fund(app, owner.merchantId, 1_000_000); // the owner can always cover its part: only the recipient is short
  const charges = [];
  for (let i = 0; i < 8; i++)
    charges.push(await paidCharge(owner, { amount: 5000, splits: [{ merchantId: r.merchantId, amount: 1000 }] }));
  t.is(await available(r), 8000);
  // 8 full refunds (1000 each from the recipient) and 8 withdrawals of 1000, all at once: 16000 asked of 8000
  const results = await Promise.all([
    ...charges.map((c) =>
      refund(owner, c.id, { reverseSplits: true }).then((x) => ['refund', x.status, x.body] as const),
    ),
    ...charges.map(() =>
      r.http
        .post('/v1/merchants/me/withdrawals', { amount: 1000, pixKey: 'r@example.com', pixKeyType: 'EMAIL' })
        .then((x) => ['withdrawal', x.status, x.body] as const),
    ),
  ]);
  const ok = results.filter(([, status]) => status === 201 || status === 202);
  t.is(ok.length, 8, JSON.stringify(results.map(([kind, status]) => [kind, status])));
  for (const [kind, status, body] of results.filter(([, s]) => s !== 201 && s !== 202)) {
    t.is(status, 422);
    t.is(
      body.message,
      kind === 'refund'
        ? `Saldo insuficiente do recebedor ${r.merchantId} para devolver sua parte do estorno (1000 centavos)`
        : 'Saldo insuficiente',
    );
  }
  t.is(await available(r), 0);
  const [{ balance: min }] = await sql(`select balance from ledger_accounts where code = ?`, [
    accounts.available(r.merchantId),
  ]);
  t.is(Number(min), 0);
  for (const [kind, , body] of ok) if (kind === 'refund') await complete(body.refund.id);
  await ledgerClean(t);
});

test('property: random amounts, fees, splits and refund sequences (reversing or not, completed or failed) match the books exactly', async (t) => {
  const pool = [await recipient(), await recipient(), await recipient()];
  const owner = await createOnboardedMerchant(app);
  await fund(app, owner.merchantId, 100_000_000);
  const expected = new Map<string, number>();
  for (const m of [...pool, owner]) expected.set(m.merchantId, await available(m));
  const post = (ps: { account: string; amount: number; merchantId?: string }[]) => {
    for (const p of ps) if (p.merchantId) expected.set(p.merchantId, expected.get(p.merchantId)! + p.amount);
  };
  const agrees = async () => {
    for (const m of [...pool, owner]) if ((await available(m)) !== expected.get(m.merchantId)) return false;
    return true;
  };
  const arb = fc.record({
    amount: fc.integer({ min: 1, max: 100_000 }),
    bps: fc.integer({ min: 0, max: 3000 }),
    fixed: fc.integer({ min: 0, max: 300 }),
    splits: fc
      .uniqueArray(
        fc.record({
          who: fc.integer({ min: 0, max: pool.length - 1 }),
          bps: fc.option(fc.integer({ min: 1, max: 6000 }), { nil: undefined }),
          amount: fc.integer({ min: 1, max: 30_000 }),
        }),
        { minLength: 1, maxLength: pool.length, selector: (x) => x.who },
      )
      .map((xs) =>
        xs.map((x): SplitInput =>
          x.bps === undefined
            ? { merchantId: pool[x.who].merchantId, amount: x.amount }
            : { merchantId: pool[x.who].merchantId, bps: x.bps },
        ),
      ),
    pieces: fc.array(
      fc.record({ ask: fc.nat(), reverse: fc.boolean(), outcome: fc.constantFrom('complete', 'fail') }),
      { minLength: 1, maxLength: 4 },
    ),
  });
  await fc.assert(
    fc.asyncProperty(arb, async ({ amount, bps, fixed, splits, pieces }) => {
      await sql(`update merchants set fee_bps = ?, fee_fixed = ? where id = ?`, [bps, fixed, owner.merchantId]);
      const fee = platformFee(amount, { bps, fixed });
      fc.pre(splitsFit(amount - fee, splits));
      const c = await paidCharge(owner, { amount, splits });
      const resolved = resolveSplits(amount - fee, splits);
      post([{ account: '', amount: amount - fee, merchantId: owner.merchantId }]);
      for (const s of resolved) {
        post([{ account: '', amount: s.amount!, merchantId: s.merchantId }]);
        post([{ account: '', amount: -s.amount!, merchantId: owner.merchantId }]);
      }
      if (!(await agrees())) return false;
      const live: { amount: number; fee: number; shares: SplitShare[] | null }[] = [];
      for (const piece of [...pieces, { ask: 0, reverse: pieces.every((p) => p.reverse), outcome: 'complete' }]) {
        const before = { amount: 0, fee: 0 };
        const reversed = { amount: 0, shares: [] as SplitShare[] };
        for (const x of live) {
          before.amount += x.amount;
          before.fee += x.fee;
          if (x.shares) {
            reversed.amount += x.amount;
            reversed.shares.push(...x.shares);
          }
        }
        const left = amount - before.amount;
        if (left === 0) break;
        const ask = piece === pieces.at(-1) || piece.ask % 3 === 0 ? left : 1 + (piece.ask % left);
        const res = await refund(owner, c.id, { amount: ask, reverseSplits: piece.reverse });
        const feeAmount = refundFee({ amount, fee }, before, ask);
        const shares = piece.reverse
          ? refundSplitShares(
              { paid: amount, splits: resolved.map((s) => ({ merchantId: s.merchantId, amount: s.amount! })) },
              reversed,
              ask,
            )
          : null;
        const money = { amount: ask, feeAmount, merchantId: owner.merchantId, splits: shares ?? [] };
        if (res.status !== 202) {
          // only a recipient's balance may refuse it (the owner is funded): what the books say it cannot cover
          return res.status === 422 && shares!.some((s) => s.amount > expected.get(s.merchantId)!);
        }
        post(refundPostings('hold', money));
        if (!(await agrees())) return false;
        if (piece.outcome === 'fail') {
          await fail(res.body.refund.id);
          post(refundPostings('release', money));
        } else {
          await complete(res.body.refund.id);
          post(refundPostings('complete', money));
          live.push({ amount: ask, fee: feeAmount, shares });
        }
        if (!(await agrees())) return false;
      }
      return (await verifyLedger(app.orm.em.fork())).ok;
    }),
    { numRuns: 15 },
  );
  t.pass();
});
