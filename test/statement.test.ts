import test, { type ExecutionContext } from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';

// The statement (extrato) on the real API, worker and database: every movement of a merchant's money, signed, with
// balanceAfter; its sum is available + blocked; CSV; tenant isolation; validation.
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

type Merchant = Awaited<ReturnType<typeof createMerchant>>;
const recipient = () => createMerchant(app, { kyc: 'APPROVED' });
const statement = async (m: Merchant, q = '') => {
  const res = await m.http.get(`/v1/merchants/me/statement${q}`);
  if (res.status !== 200) throw new Error(`statement: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const balance = async (m: Merchant) => (await m.http.get('/v1/merchants/me/balance')).body;

async function ledgerClean(t: ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report));
}

// The whole statement sums to available + blocked, and each balanceAfter is the running sum, oldest to newest.
async function sumsToBalance(t: ExecutionContext, m: Merchant) {
  const all = (await statement(m, '?limit=100')).entries as { amount: number; balanceAfter: number }[];
  const b = await balance(m);
  t.is(
    all.reduce((s, e) => s + e.amount, 0),
    b.available + b.blocked,
  );
  let running = 0;
  for (const e of [...all].reverse()) t.is(e.balanceAfter, (running += e.amount));
}

async function charge(owner: Merchant, body: object) {
  const res = await owner.http.post('/v1/charges', { description: 'Pedido', ...body });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.charge;
}

async function pay(owner: Merchant, id: string) {
  const res = await owner.http.post(`/v1/sandbox/charges/${id}/pay`);
  if (res.status !== 202) throw new Error(`pay: ${res.status} ${JSON.stringify(res.body)}`);
  return waitUntil(
    async () => {
      const c = (await owner.http.get(`/v1/charges/${id}`)).body.charge;
      return c.status === 'PAID' ? c : null;
    },
    15_000,
    'PAID',
  );
}

test('a charge with two splits: CHARGE_PAID of the net and a SPLIT_PAID per recipient; each recipient a SPLIT_RECEIVED; a refund reversing splits is a REFUND per account it takes from', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const [seller, courier] = [await recipient(), await recipient()];
  const c = await charge(owner, {
    amount: 10_000, // fee 99, net 9901
    splits: [
      { merchantId: seller.merchantId, amount: 7000 },
      { merchantId: courier.merchantId, bps: 1000 }, // 990
    ],
  });
  await pay(owner, c.id);
  const o = await statement(owner);
  t.like(o, { page: 1, limit: 20, total: 3 });
  t.deepEqual(
    o.entries.map((e: any) => [e.type, e.amount, e.balanceAfter, e.chargeId]),
    [
      ['SPLIT_PAID', -990, 1911, c.id],
      ['SPLIT_PAID', -7000, 2901, c.id],
      ['CHARGE_PAID', 9901, 9901, c.id],
    ],
  );
  t.deepEqual(Object.keys(o.entries[0]).sort(), [
    'amount',
    'balanceAfter',
    'blockedAmount',
    'chargeId',
    'createdAt',
    'id',
    'infractionId',
    'refundId',
    'type',
    'withdrawalId',
  ]);
  const s = await statement(seller);
  t.like(s, { total: 1 });
  t.like(s.entries[0], { type: 'SPLIT_RECEIVED', amount: 7000, balanceAfter: 7000, chargeId: c.id, refundId: null });
  t.like((await statement(courier)).entries[0], { type: 'SPLIT_RECEIVED', amount: 990, chargeId: c.id });

  // tenant isolation: the recipient sees its line and the charge's id, never the owner's charge
  t.is((await seller.http.get(`/v1/charges/${c.id}`)).status, 404);

  // a partial refund of 1000 with reverseSplits: fee 10 from the platform, 700 from the seller, 99 from the courier,
  // the rest (191) from the owner: one REFUND line each, negative, with the refund's and the charge's ids
  const r = await owner.http.post(`/v1/charges/${c.id}/refunds`, { amount: 1000, reverseSplits: true });
  t.is(r.status, 202, JSON.stringify(r.body));
  const refundId = r.body.refund.id;
  const line = async (m: Merchant) => (await statement(m)).entries[0];
  t.like(await line(owner), { type: 'REFUND', amount: -191, balanceAfter: 1911 - 191, refundId, chargeId: c.id });
  t.like(await line(seller), { type: 'REFUND', amount: -700, balanceAfter: 6300, refundId, chargeId: c.id });
  t.like(await line(courier), { type: 'REFUND', amount: -99, balanceAfter: 891, refundId, chargeId: c.id });
  for (const m of [owner, seller, courier]) await sumsToBalance(t, m);
  await ledgerClean(t);
});
