import test, { type ExecutionContext } from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { decide } from '../src/infractions/infractions.states.ts';
import { fund } from './withdrawals.helpers.ts';

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
    'recurringChargeId',
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

test('withdrawals and MED: WITHDRAWAL, WITHDRAWAL_REVERSED, INFRACTION_BLOCK (0, blockedAmount +), INFRACTION_RELEASE, INFRACTION_REFUND; sums stay available + blocked', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = await charge(m, { amount: 10_000 }); // net 9901
  await pay(m, c.id);
  const w = await m.http.post('/v1/merchants/me/withdrawals', {
    amount: 1000,
    pixKey: 'fail@sandbox.test',
    pixKeyType: 'EMAIL',
  });
  t.is(w.status, 201);
  const withdrawalId = w.body.withdrawal.id;
  const reversed = await waitUntil(
    async () => ((await statement(m)).entries[0].type === 'WITHDRAWAL_REVERSED' ? (await statement(m)).entries : null),
    15_000,
    'the failed withdrawal credited back',
  );
  t.deepEqual(
    reversed.slice(0, 2).map((e: any) => [e.type, e.amount, e.balanceAfter, e.withdrawalId]),
    [
      ['WITHDRAWAL_REVERSED', 1000, 9901, withdrawalId],
      ['WITHDRAWAL', -1000, 8901, withdrawalId],
    ],
  );
  // an infraction blocks 9901 of the 10000: the merchant's money does not change, its blocked part does
  const opened = await m.http.post(`/v1/sandbox/charges/${c.id}/infraction`, { reason: 'Golpe' });
  t.is(opened.status, 201);
  const infractionId = opened.body.infraction.id;
  t.like((await statement(m)).entries[0], {
    type: 'INFRACTION_BLOCK',
    amount: 0,
    blockedAmount: 9901,
    balanceAfter: 9901,
    infractionId,
    chargeId: c.id,
  });
  await sumsToBalance(t, m);
  // a credit while it is owed (99 short): blocked as it arrives, with the infraction's id
  const c2 = await charge(m, { amount: 1000 }); // net 990
  await pay(m, c2.id);
  await waitUntil(async () => (await balance(m)).blocked === 10_000 || null, 15_000, 'the shortfall covered');
  t.like((await statement(m)).entries[0], { type: 'INFRACTION_BLOCK', amount: 0, blockedAmount: 99, infractionId });
  // accepted: the payer gets 10000 back from the hold
  await decide(app.deps, app.orm.em.fork(), infractionId, 'accept');
  t.like((await statement(m)).entries[0], {
    type: 'INFRACTION_REFUND',
    amount: -10_000,
    blockedAmount: -10_000,
    balanceAfter: 891,
    infractionId,
    chargeId: c.id,
  });
  await sumsToBalance(t, m);

  // a rejected one gives the hold back: INFRACTION_RELEASE, 0, blockedAmount -
  const other = await createOnboardedMerchant(app);
  const c3 = await charge(other, { amount: 2000 }); // net 1980
  await pay(other, c3.id);
  const i3 = (await other.http.post(`/v1/sandbox/charges/${c3.id}/infraction`, {})).body.infraction.id;
  await decide(app.deps, app.orm.em.fork(), i3, 'reject');
  t.deepEqual(
    (await statement(other)).entries.map((e: any) => [e.type, e.amount, e.blockedAmount, e.balanceAfter]),
    [
      ['INFRACTION_RELEASE', 0, -1980, 1980],
      ['INFRACTION_BLOCK', 0, 1980, 1980],
      ['CHARGE_PAID', 1980, 0, 1980],
    ],
  );
  await sumsToBalance(t, other);
  await ledgerClean(t);
});

test('pages like every listing: total, newest first, empty past the end; from/to by São Paulo day or instant', async (t) => {
  const m = await createMerchant(app);
  for (let i = 1; i <= 7; i++) await fund(app, m.merchantId, i * 100);
  const all = await statement(m);
  t.like(all, { page: 1, limit: 20, total: 7 });
  t.deepEqual(
    all.entries.map((e: any) => e.amount),
    [700, 600, 500, 400, 300, 200, 100],
  );
  const p2 = await statement(m, '?page=2&limit=3');
  t.like(p2, { page: 2, limit: 3, total: 7 });
  t.deepEqual(
    p2.entries.map((e: any) => [e.amount, e.balanceAfter]),
    [
      [400, 1000],
      [300, 600],
      [200, 300],
    ],
  );
  t.deepEqual(
    (await statement(m, '?page=3&limit=3')).entries.map((e: any) => e.amount),
    [100],
  );
  t.like(await statement(m, '?page=4&limit=3'), { total: 7, entries: [] });
  t.like(await statement(m, '?page=2147483647&limit=100'), { total: 7, entries: [] });

  // move lines 1..3 to 2026-10-31 23:30 in São Paulo (02:30Z on Nov 1st) and 4..7 to Nov 1st 12:00 there
  await app.orm.em
    .fork()
    .execute(
      `update statement_entries set created_at = case when n <= 3 then '2026-11-01T02:30:00Z'::timestamptz else '2026-11-01T15:00:00Z'::timestamptz end where merchant_id = ?`,
      [m.merchantId],
    );
  const amounts = async (q: string) => {
    const r = await statement(m, q);
    return [r.total, r.entries.map((e: any) => e.amount)];
  };
  t.deepEqual(await amounts('?from=2026-11-01'), [4, [700, 600, 500, 400]]);
  t.deepEqual(await amounts('?to=2026-10-31'), [3, [300, 200, 100]]);
  t.deepEqual(await amounts('?from=2026-10-31&to=2026-11-01'), [7, [700, 600, 500, 400, 300, 200, 100]]);
  t.deepEqual(await amounts('?from=2026-11-02'), [0, []]);
  t.deepEqual(await amounts('?to=2026-11-01T02:30:00Z'), [3, [300, 200, 100]]); // inclusive
  t.deepEqual(await amounts('?to=2026-11-01T02:29:59.999Z'), [0, []]);
  t.deepEqual(await amounts('?from=2026-11-01T02:30:00.001Z'), [4, [700, 600, 500, 400]]);
  t.deepEqual(await amounts('?from=2026-10-31T23:30:00-03:00&to=2026-11-01T12:00:00-03:00&limit=2&page=2'), [
    7,
    [500, 400],
  ]);
  // another merchant's lines are never in it
  t.like(await statement(await createMerchant(app)), { total: 0, entries: [] });
});

test('CSV: ?format=csv or Accept: text/csv, a header row and the same rows; a page with page/limit, else the whole range', async (t) => {
  const m = await createMerchant(app);
  for (let i = 1; i <= 5; i++) await fund(app, m.merchantId, i * 10);
  const json = (await statement(m)).entries as any[];
  const parse = (text: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => l.split(','));
  const csv = await fetch(`${app.baseUrl}/v1/merchants/me/statement?format=csv`, {
    headers: { authorization: `Bearer ${m.token}` },
  });
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type')!, /^text\/csv/);
  t.is(csv.headers.get('x-total-count'), '5');
  t.regex(csv.headers.get('content-disposition')!, /attachment; filename="extrato.csv"/);
  const rows = parse(await csv.text());
  t.deepEqual(rows[0], [
    'id',
    'createdAt',
    'type',
    'amount',
    'blockedAmount',
    'balanceAfter',
    'chargeId',
    'withdrawalId',
    'refundId',
    'infractionId',
    'recurringChargeId',
  ]);
  t.deepEqual(
    rows.slice(1),
    json.map((e) => [
      e.id,
      e.createdAt,
      e.type,
      String(e.amount),
      String(e.blockedAmount),
      String(e.balanceAfter),
      e.chargeId ?? '',
      '',
      '',
      '',
      '',
    ]),
  );
  const viaAccept = await fetch(`${app.baseUrl}/v1/merchants/me/statement?limit=2&page=2`, {
    headers: { authorization: `Bearer ${m.token}`, accept: 'text/csv' },
  });
  t.regex(viaAccept.headers.get('content-type')!, /^text\/csv/);
  t.deepEqual(
    parse(await viaAccept.text())
      .slice(1)
      .map((r) => r[0]),
    json.slice(2, 4).map((e) => e.id),
  );
  // format=json wins over Accept; a browser's Accept gets JSON
  const forced = await fetch(`${app.baseUrl}/v1/merchants/me/statement?format=json`, {
    headers: { authorization: `Bearer ${m.token}`, accept: 'text/csv' },
  });
  t.is(((await forced.json()) as { total: number }).total, 5);
  const browser = await fetch(`${app.baseUrl}/v1/merchants/me/statement`, {
    headers: { authorization: `Bearer ${m.token}`, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
  });
  t.regex(browser.headers.get('content-type')!, /^application\/json/);
});

test('the CSV export streams every line of a long statement, newest first, in batches', async (t) => {
  const m = await createMerchant(app);
  const n = 2_345;
  // lines written as the ledger writes them, in bulk (one posting per line would take minutes)
  await app.orm.em.fork().execute(
    `insert into statement_entries (id, merchant_id, n, type, amount, blocked_amount, balance_after, transaction_id, created_at)
     select gen_random_uuid(), ?, i, 'CHARGE_PAID', 1, 0, i, gen_random_uuid(), now() from generate_series(1, ?) i`,
    [m.merchantId, n],
  );
  const res = await fetch(`${app.baseUrl}/v1/merchants/me/statement?format=csv`, {
    headers: { authorization: `Bearer ${m.token}` },
  });
  const lines = (await res.text()).trimEnd().split('\n').slice(1);
  t.is(lines.length, n);
  t.deepEqual(
    lines.map((l) => Number(l.split(',')[5])),
    Array.from({ length: n }, (_, i) => n - i),
  );
  t.like(await statement(m, '?page=10&limit=100'), { total: n });
  t.is((await statement(m, '?page=10&limit=100')).entries[0].balanceAfter, n - 900);
  await app.orm.em.fork().execute(`delete from statement_entries where merchant_id = ?`, [m.merchantId]);
});

test('bad queries: 400 with the listing messages, nothing else read', async (t) => {
  const m = await createMerchant(app);
  const bad = async (q: string) => {
    const res = await m.http.get(`/v1/merchants/me/statement${q}`);
    t.is(res.status, 400, q);
    t.is(res.body.message, 'Dados inválidos');
    return res.body.errors;
  };
  t.deepEqual(await bad('?page=0'), [{ field: 'page', message: 'page deve ser um inteiro >= 1' }]);
  t.deepEqual(await bad('?limit=101'), [{ field: 'limit', message: 'limit deve ser um inteiro entre 1 e 100' }]);
  t.deepEqual(await bad('?page=1&page=2'), [{ field: 'page', message: 'page deve aparecer uma única vez' }]);
  const fromMessage =
    'from deve ser uma data (AAAA-MM-DD) ou data e hora ISO 8601 com fuso (ex.: 2026-11-01T00:00:00-03:00)';
  for (const v of ['ontem', '2026-02-30', '2026-11-01T10:00:00', '2026-13-01', '', '1700000000'])
    t.deepEqual(await bad(`?from=${encodeURIComponent(v)}`), [{ field: 'from', message: fromMessage }], v);
  t.deepEqual(await bad('?to=2026-11-01T25:00:00Z'), [{ field: 'to', message: fromMessage.replace('from', 'to') }]);
  t.deepEqual(await bad('?from=2026-11-02&to=2026-11-01'), [{ field: 'to', message: 'to deve ser posterior a from' }]);
  t.deepEqual(await bad('?format=xml'), [{ field: 'format', message: 'format deve ser json ou csv' }]);
  t.is((await statement(m, '?from=2026-11-01&to=2026-11-01')).total, 0); // one day is a range
});
