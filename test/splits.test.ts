import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant, createOnboardedMerchant, cpf } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { fund } from './withdrawals.helpers.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { settlePayments } from '../src/payments/settlement.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { createLogger } from '../src/platform/logger.ts';
import { platformFee } from '../src/money/money.ts';
import { resolveSplits, splitsFit, type SplitInput } from '../src/money/splits.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { amountDueOn } from '../src/money/due-date-amounts.ts';
import { decide } from '../src/infractions/infractions.states.ts';
import { main as ops } from '../src/ops.ts';
import { UNUSABLE_RECIPIENT } from '../src/charges/charges.create.ts';

// Splits end to end: a charge's net amount shared with other merchants of the platform, on the real API, worker and
// database; every test leaves a ledger that ledger:verify finds clean.
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
const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) => app.orm.em.fork().execute<T[]>(q, params);
const available = async (m: Merchant) => (await m.http.get('/v1/merchants/me/balance')).body.available as number;
const recipient = () => createMerchant(app, { kyc: 'APPROVED' });
const log = createLogger('silent', 'test');

async function ledgerClean(t: ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report));
}

async function charge(owner: Merchant, body: object) {
  const res = await owner.http.post('/v1/charges', { description: 'Pedido', ...body });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.charge;
}

// Pays through the sandbox route (the notification path and the worker) and waits for PAID.
async function payViaSandbox(owner: Merchant, id: string, body?: object) {
  const pay = await owner.http.post(`/v1/sandbox/charges/${id}/pay`, body);
  if (pay.status !== 202) throw new Error(`pay: ${pay.status} ${JSON.stringify(pay.body)}`);
  return waitUntil(
    async () => {
      const c = (await owner.http.get(`/v1/charges/${id}`)).body.charge;
      return c.status === 'PAID' ? c : null;
    },
    15_000,
    'PAID',
  );
}

// Settles payments as the worker does, in one settlement transaction.
const settle = (cs: { txid: string; amount: number }[]) =>
  settlePayments(
    { boss: app.boss, logger: log, config: app.config },
    app.orm.em.fork(),
    cs.map((c) => ({
      txid: c.txid,
      endToEndId: sandboxEndToEndId(),
      amount: c.amount,
      paidAt: new Date().toISOString(),
    })),
  );

test('a three-party sale: each recipient is credited its split and the owner the rest, in one settlement', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const [seller, courier] = [await recipient(), await recipient()];
  const c = await charge(owner, {
    amount: 10_000, // fee 99, net 9901
    splits: [
      { merchantId: seller.merchantId, amount: 7000 },
      { merchantId: courier.merchantId, bps: 1000 }, // 990.1 -> 990
    ],
  });
  t.like(c, { status: 'PENDING', fee: 99, netAmount: 9901 });
  t.deepEqual(c.splits, [
    { merchantId: seller.merchantId, amount: 7000, bps: null },
    { merchantId: courier.merchantId, amount: 990, bps: 1000 },
  ]);
  const paid = await payViaSandbox(owner, c.id);
  t.deepEqual(paid.splits, c.splits);
  t.is(await available(owner), 9901 - 7000 - 990);
  t.is(await available(seller), 7000);
  t.is(await available(courier), 990);

  // in the one settlement transaction: the payment and one split per recipient, posted with the charge's PAID
  const txs = await sql(
    `select t.kind, e.amount, a.code from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
       join ledger_accounts a on a.id = e.account_id
      where t.kind in ('charge.payment', 'charge.split') and (a.merchant_id = any(?::uuid[]))
      order by t.kind, e.amount`,
    [`{${owner.merchantId},${seller.merchantId},${courier.merchantId}}`],
  );
  t.deepEqual(
    txs.map((r) => [r.kind, Number(r.amount), r.code.split(':')[1]]),
    [
      ['charge.payment', 9901, owner.merchantId],
      ['charge.split', -7000, owner.merchantId],
      ['charge.split', -990, owner.merchantId],
      ['charge.split', 990, courier.merchantId],
      ['charge.split', 7000, seller.merchantId],
    ],
  );
  // charge.paid is the owner's, with the splits in its data; the recipients get no event
  const events = await sql(`select merchant_id, type, data from events where data->>'id' = ?`, [c.id]);
  t.deepEqual(
    events.map((e) => [e.merchant_id, e.type]),
    [[owner.merchantId, 'charge.paid']],
  );
  t.deepEqual(events[0].data.splits, c.splits);
  // and the listing shows them too
  const listed = (await owner.http.get('/v1/charges?limit=1')).body.charges[0];
  t.deepEqual(listed.splits, c.splits);
  // a charge without splits shows an empty list
  t.deepEqual((await charge(owner, { amount: 100 })).splits, []);
  await ledgerClean(t);
});

test('splits are checked: 400 for their shape and fit, 422 naming each recipient that cannot receive; nothing is created', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const ok = await recipient();
  const pending = await createMerchant(app); // KYC PENDING
  const rejected = await createMerchant(app, { kyc: 'REJECTED' });
  const blocked = await createMerchant(app, { kyc: 'APPROVED', status: 'BLOCKED' });
  const unknown = '019ac1d0-7a2b-7c3d-8e4f-5a6b7c8d9e0f';
  const before = (await owner.http.get('/v1/charges')).body.total;
  const post = (splits: unknown, extra: object = {}) =>
    owner.http.post('/v1/charges', { amount: 10_000, description: 'x', splits, ...extra });
  const fields = async (splits: unknown, extra: object = {}) => {
    const r = await post(splits, extra);
    t.is(r.status, 400, JSON.stringify(splits));
    return r.body.errors.map((e: { field: string }) => e.field);
  };
  const id = ok.merchantId;
  t.deepEqual(await fields([]), ['splits']);
  t.deepEqual(await fields({ merchantId: id, amount: 1 }), ['splits']);
  t.deepEqual(await fields(Array.from({ length: 11 }, () => ({ merchantId: id, bps: 1 }))), ['splits']);
  t.deepEqual(await fields([{ merchantId: id }]), ['splits[0]']);
  t.deepEqual(await fields([{ merchantId: id, amount: 1, bps: 1 }]), ['splits[0]']);
  t.deepEqual(await fields([{ merchantId: id, amount: 1, extra: 1 }]), ['splits[0]']);
  t.deepEqual(await fields([{ merchantId: 'loja-1', amount: 1 }]), ['splits[0].merchantId']);
  t.deepEqual(await fields([{ merchantId: id, amount: '100' }]), ['splits[0].amount']);
  t.deepEqual(await fields([{ merchantId: id, amount: 0 }]), ['splits[0].amount']);
  t.deepEqual(await fields([{ merchantId: id, bps: 10_001 }]), ['splits[0].bps']);
  t.deepEqual(await fields([{ merchantId: id, bps: 1.5 }]), ['splits[0].bps']);
  // more than the net amount (10000 - 99 = 9901): by a fixed amount, or by the exact share of bps
  const over = await post([{ merchantId: id, amount: 9902 }]);
  t.deepEqual(over.body, {
    code: 'validation_failed',
    message: 'Dados inválidos',
    errors: [
      {
        field: 'splits',
        message: 'a soma dos splits passa do valor líquido da cobrança (9901 centavos: amount - fee)',
      },
    ],
  });
  t.is(
    (
      await post([
        { merchantId: id, amount: 8911 },
        { merchantId: unknown, bps: 1000 },
      ])
    ).status,
    400,
  );
  t.is(
    (
      await post([
        { merchantId: id, bps: 6000 },
        { merchantId: unknown, bps: 4001 },
      ])
    ).status,
    400,
  );
  // a due-date charge: bps only (its net is known at payment)
  const due = { dueDate: saoPauloDate(new Date()), customer: { name: 'Maria', document: cpf() } };
  t.deepEqual(await fields([{ merchantId: id, amount: 100 }], due), ['splits']);

  // recipients that cannot receive: 422 naming each, by position and id
  const bad = await post([
    { merchantId: owner.merchantId, bps: 100 },
    { merchantId: id, bps: 100 },
    { merchantId: id, amount: 1 },
    { merchantId: unknown, bps: 100 },
    { merchantId: blocked.merchantId, bps: 100 },
    { merchantId: pending.merchantId, bps: 100 },
    { merchantId: rejected.merchantId, amount: 5 },
  ]);
  t.is(bad.status, 422);
  t.is(
    bad.body.message,
    'Recebedor de split inválido: ' +
      [
        `splits[0].merchantId ${owner.merchantId} é o próprio dono da cobrança`,
        `splits[2].merchantId ${id} aparece mais de uma vez`,
        `splits[3].merchantId ${unknown} ${UNUSABLE_RECIPIENT}`,
        `splits[4].merchantId ${blocked.merchantId} ${UNUSABLE_RECIPIENT}`,
        `splits[5].merchantId ${pending.merchantId} ${UNUSABLE_RECIPIENT}`,
        `splits[6].merchantId ${rejected.merchantId} ${UNUSABLE_RECIPIENT}`,
      ].join('; '),
  );
  // an id in capitals is the same merchant
  const upper = await post([{ merchantId: id.toUpperCase(), amount: 1 }]);
  t.is(upper.status, 201);
  t.deepEqual(upper.body.charge.splits, [{ merchantId: id, amount: 1, bps: null }]);
  t.is((await owner.http.get('/v1/charges')).body.total, before + 1);
  t.is(
    Number((await sql(`select count(*) as n from charges where merchant_id = ?`, [owner.merchantId]))[0].n),
    before + 1,
  );
  await ledgerClean(t);
});

test('an unknown, a blocked and a KYC-pending recipient get the same 422, naming the id and not the reason', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const recipients = {
    unknown: '019ac1d0-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
    blocked: (await createMerchant(app, { kyc: 'APPROVED', status: 'BLOCKED' })).merchantId,
    pending: (await createMerchant(app)).merchantId,
    rejected: (await createMerchant(app, { kyc: 'REJECTED' })).merchantId,
  };
  const before = (await owner.http.get('/v1/charges')).body.total;
  const bodies: Record<string, unknown> = {};
  for (const [kind, id] of Object.entries(recipients)) {
    const res = await owner.http.post('/v1/charges', {
      amount: 1000,
      description: 'Pedido',
      splits: [{ merchantId: id, bps: 100 }],
    });
    t.is(res.status, 422, kind);
    t.is(res.body.message, `Recebedor de split inválido: splits[0].merchantId ${id} ${UNUSABLE_RECIPIENT}`, kind);
    bodies[kind] = JSON.parse(JSON.stringify(res.body).replaceAll(id, '<id>'));
  }
  t.deepEqual(bodies.blocked, bodies.unknown);
  t.deepEqual(bodies.pending, bodies.unknown);
  t.deepEqual(bodies.rejected, bodies.unknown);
  t.is((await owner.http.get('/v1/charges')).body.total, before, 'nothing created');
});

test('a due-date charge: bps splits wait for the payment and are resolved on the net of what was paid', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const [a, b] = [await recipient(), await recipient()];
  const today = saoPauloDate(new Date());
  const terms = { amount: 12_345, dueDate: today, rebate: { mode: 'PERCENT', bps: 333 } } as const;
  const splits = [
    { merchantId: a.merchantId, bps: 3333 },
    { merchantId: b.merchantId, bps: 6667 }, // 100 % in all: the owner keeps what the roundings leave
  ];
  const key = { 'x-idempotency-key': `due-${a.merchantId}` };
  const body = { ...terms, description: 'Mensalidade', customer: { name: 'Maria', document: cpf() }, splits };
  const created = await owner.http.post('/v1/charges', body, key);
  t.is(created.status, 201);
  const c = created.body.charge;
  t.deepEqual(c.splits, [
    { merchantId: a.merchantId, amount: null, bps: 3333 },
    { merchantId: b.merchantId, amount: null, bps: 6667 },
  ]);
  const paid = await payViaSandbox(owner, c.id);
  const due = amountDueOn(
    { original: 12_345, dueDate: today, rebate: terms.rebate, discount: null, fine: null, interest: null },
    today,
  );
  t.is(paid.paidAmount, due.final); // 12345 - 411
  const fee = platformFee(due.final, { bps: 99, fixed: 0 });
  t.is(paid.fee, fee);
  const net = due.final - fee;
  const expected = resolveSplits(net, splits);
  t.deepEqual(paid.splits, expected);
  t.is(await available(a), expected[0].amount!);
  t.is(await available(b), expected[1].amount!);
  t.is(await available(owner), net - expected[0].amount! - expected[1].amount!);
  // the replay answers with the creation's body: the splits without their amounts
  const replay = await owner.http.post('/v1/charges', body, key);
  t.is(replay.status, 200);
  t.deepEqual(replay.body.charge.splits, c.splits);
  await ledgerClean(t);
});

test('idempotency: the splits are part of the body', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const [a, b] = [await recipient(), await recipient()];
  const body = { amount: 5000, description: 'x', splits: [{ merchantId: a.merchantId, amount: 100 }] };
  const key = { 'x-idempotency-key': 'pedido-77' };
  const first = await owner.http.post('/v1/charges', body, key);
  t.is(first.status, 201);
  const again = await owner.http.post('/v1/charges', body, key);
  t.is(again.status, 200);
  t.deepEqual(again.body.charge, first.body.charge);
  for (const other of [
    [{ merchantId: a.merchantId, amount: 101 }],
    [{ merchantId: b.merchantId, amount: 100 }],
    [{ merchantId: a.merchantId, bps: 100 }],
    [
      { merchantId: a.merchantId, amount: 100 },
      { merchantId: b.merchantId, amount: 1 },
    ],
  ])
    t.is((await owner.http.post('/v1/charges', { ...body, splits: other }, key)).status, 409);
  t.is((await owner.http.post('/v1/charges', { amount: 5000, description: 'x' }, key)).status, 409);
  await ledgerClean(t);
});

test('tenant isolation: a recipient never sees the charge it is paid a split of', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const r = await createOnboardedMerchant(app); // a recipient that takes charges of its own too
  const c = await charge(owner, { amount: 3000, splits: [{ merchantId: r.merchantId, amount: 1000 }] });
  const own = await charge(r, { amount: 500 });
  await payViaSandbox(owner, c.id);
  t.is(await available(r), 1000);
  const get = await r.http.get(`/v1/charges/${c.id}`);
  t.deepEqual([get.status, get.body], [404, { code: 'not_found', message: 'Cobrança não encontrada' }]);
  const list = (await r.http.get('/v1/charges')).body;
  t.deepEqual(
    list.charges.map((x: { id: string }) => x.id),
    [own.id],
  );
  t.is(list.total, 1);
  t.is((await r.http.get('/v1/charges?status=PAID')).body.total, 0);
  t.is((await r.http.post(`/v1/charges/${c.id}/refund`)).status, 404);
  t.is((await r.http.post(`/v1/sandbox/charges/${c.id}/infraction`, { reason: 'x' })).status, 404);
  await ledgerClean(t);
});

test('a recipient blocked or with KYC refused after the charge was created is still credited; blocked, it cannot withdraw', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const [blocked, refused] = [await recipient(), await recipient()];
  const c = await charge(owner, {
    amount: 10_000,
    splits: [
      { merchantId: blocked.merchantId, amount: 3000 },
      { merchantId: refused.merchantId, amount: 2000 },
    ],
  });
  const env = { env: { DATABASE_URL: app.databaseUrl }, out: () => {}, err: () => {} };
  t.is(await ops(['merchant:block', '--email', blocked.email], env), 0);
  t.is(await ops(['kyc:reject', '--email', refused.email], env), 0);
  // a new charge to them is refused, the one created before pays them
  const refusedNow = await owner.http.post('/v1/charges', {
    amount: 100,
    description: 'x',
    splits: [{ merchantId: refused.merchantId, amount: 1 }],
  });
  t.is(refusedNow.status, 422);
  await payViaSandbox(owner, c.id);
  const balances = await sql(`select code, balance from ledger_accounts where code = any(?::text[]) order by code`, [
    `{merchant:${blocked.merchantId}:available,merchant:${refused.merchantId}:available}`,
  ]);
  t.deepEqual(Object.fromEntries(balances.map((r) => [r.code.split(':')[1], Number(r.balance)])), {
    [blocked.merchantId]: 3000,
    [refused.merchantId]: 2000,
  });
  t.is(await available(owner), 9901 - 5000);
  // blocked: every call is 403, a withdrawal included; unblocked, it withdraws what it was paid
  const withdrawal = { amount: 3000, pixKey: 'vendedor@example.com', pixKeyType: 'EMAIL' };
  const denied = await blocked.http.post('/v1/merchants/me/withdrawals', withdrawal);
  t.deepEqual([denied.status, denied.body], [403, { code: 'account_inactive', message: 'Sua conta está inativa' }]);
  t.is(await ops(['merchant:unblock', '--email', blocked.email], env), 0);
  t.is((await blocked.http.post('/v1/merchants/me/withdrawals', withdrawal)).status, 201);
  t.is(await available(blocked), 0);
  await ledgerClean(t);
});

test('MED: the owner is liable for the whole charge; the recipients keep their splits', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const r = await recipient();
  const c = await charge(owner, { amount: 10_000, splits: [{ merchantId: r.merchantId, bps: 5000 }] }); // 4951 (4950.5)
  t.is(c.splits[0].amount, 4951);
  await payViaSandbox(owner, c.id);
  t.is(await available(owner), 9901 - 4951);
  const opened = await owner.http.post(`/v1/sandbox/charges/${c.id}/infraction`, { reason: 'Golpe' });
  t.is(opened.status, 201);
  t.like(opened.body.infraction, { amount: 10_000, blockedAmount: 4950 });
  t.deepEqual((await owner.http.get('/v1/merchants/me/balance')).body, {
    available: 0,
    blocked: 4950,
    currency: 'BRL',
  });
  const decided = await decide(
    { boss: app.boss, config: app.config, logger: log },
    app.orm.em.fork(),
    opened.body.infraction.id,
    'accept',
  );
  t.is(decided?.status, 'ACCEPTED');
  t.deepEqual((await owner.http.get('/v1/merchants/me/balance')).body, { available: 0, blocked: 0, currency: 'BRL' });
  t.is(await available(r), 4951); // untouched
  await ledgerClean(t);
});

test('a refund is borne by the owner: refused while its balance cannot cover it, the recipients keep their splits', async (t) => {
  const owner = await createOnboardedMerchant(app);
  const r = await recipient();
  const c = await charge(owner, { amount: 10_000, splits: [{ merchantId: r.merchantId, amount: 9000 }] });
  await payViaSandbox(owner, c.id);
  t.is(await available(owner), 901);
  const refused = await owner.http.post(`/v1/charges/${c.id}/refund`);
  t.deepEqual([refused.status, refused.body], [422, { code: 'insufficient_balance', message: 'Saldo insuficiente' }]);
  await fund(app, owner.merchantId, 9000);
  t.is((await owner.http.post(`/v1/charges/${c.id}/refund`)).status, 202);
  await waitUntil(async () => (await owner.http.get(`/v1/charges/${c.id}`)).body.charge.status === 'REFUNDED', 15_000);
  t.is(await available(owner), 0);
  t.is(await available(r), 9000);
  await ledgerClean(t);
});

test('concurrency: payments of many charges splitting to the same recipients settle at once, with no deadlock and exact balances', async (t) => {
  const recipients = [await recipient(), await recipient(), await recipient()];
  const owners = [
    await createOnboardedMerchant(app),
    await createOnboardedMerchant(app),
    await createOnboardedMerchant(app),
  ];
  const charges: { txid: string; amount: number; id: string; owner: Merchant }[] = [];
  for (let i = 0; i < 24; i++) {
    const owner = owners[i % owners.length];
    // every charge splits to all three recipients, listed in a different order each time
    const order = [0, 1, 2].map((k) => recipients[(k + i) % 3]);
    const c = await charge(owner, {
      amount: 1000 + i,
      splits: order.map((r, k) => ({ merchantId: r.merchantId, ...(k === 0 ? { amount: 100 } : { bps: 2000 }) })),
    });
    charges.push({ txid: c.txid, amount: c.amount, id: c.id, owner });
  }
  const [{ deadlocks: before }] = await sql(
    `select deadlocks from pg_stat_database where datname = current_database()`,
  );
  // settlements of overlapping batches in opposite orders, all at once, plus the sandbox route through the worker
  const batches = [
    charges.slice(0, 8),
    charges.slice(4, 14).reverse(),
    charges.slice(10, 20),
    charges.slice(16).reverse(),
  ];
  const [outcomes] = await Promise.all([
    Promise.all(batches.flatMap((b) => [settle(b), settle([...b].reverse())])),
    Promise.all(charges.filter((_, i) => i % 5 === 0).map((c) => c.owner.http.post(`/v1/sandbox/charges/${c.id}/pay`))),
  ]);
  t.true(outcomes.flat().includes('paid'));
  const [{ deadlocks: after }] = await sql(`select deadlocks from pg_stat_database where datname = current_database()`);
  t.is(Number(after), Number(before), 'no deadlock');
  // every charge paid exactly once; each merchant's balance is exactly the sum of its parts
  await waitUntil(
    async () =>
      Number(
        (
          await sql(`select count(*) as n from charges where id = any(?::uuid[]) and status = 'PAID'`, [
            `{${charges.map((c) => c.id).join(',')}}`,
          ])
        )[0].n,
      ) === charges.length,
    15_000,
    'all PAID',
  );
  await waitUntil(
    async () =>
      Number(
        (
          await sql(
            `select count(*) as n from pgboss.job where name = 'acquirer.notification' and state in ('created','retry','active')`,
          )
        )[0].n,
      ) === 0,
    15_000,
    'notifications settled',
  );
  const expected = new Map<string, number>();
  const add = (id: string, v: number) => expected.set(id, (expected.get(id) ?? 0) + v);
  for (const c of await sql(`select merchant_id, amount, fee, splits from charges where id = any(?::uuid[])`, [
    `{${charges.map((c) => c.id).join(',')}}`,
  ])) {
    const net = c.amount - c.fee;
    let given = 0;
    for (const s of c.splits) {
      add(s.merchantId, s.amount);
      given += s.amount;
    }
    add(c.merchant_id, net - given);
  }
  for (const m of [...recipients, ...owners]) t.is(await available(m), expected.get(m.merchantId)!, m.merchantId);
  const credits = await sql(`select count(*) as n from ledger_transactions where kind = 'charge.split'`);
  t.true(Number(credits[0].n) >= charges.length * 3);
  await ledgerClean(t);
});

test('property: random amounts, fees and split lists pay each party exactly, end to end on balances', async (t) => {
  const pool = [await recipient(), await recipient(), await recipient(), await recipient()];
  const owner = await createOnboardedMerchant(app);
  const expected = new Map<string, number>();
  for (const m of [...pool, owner]) expected.set(m.merchantId, await available(m));
  const splitArb = fc
    .array(
      fc.record({
        who: fc.integer({ min: 0, max: pool.length - 1 }),
        bps: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
        amount: fc.integer({ min: 1, max: 50_000 }),
      }),
      { minLength: 1, maxLength: pool.length },
    )
    .map((xs) => [...new Map(xs.map((x) => [x.who, x])).values()])
    .map((xs) =>
      xs.map((x): SplitInput =>
        x.bps === undefined
          ? { merchantId: pool[x.who].merchantId, amount: x.amount }
          : { merchantId: pool[x.who].merchantId, bps: x.bps },
      ),
    );
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 200_000 }),
      fc.integer({ min: 0, max: 2_000 }),
      fc.integer({ min: 0, max: 500 }),
      splitArb,
      async (amount, bps, fixed, splits) => {
        await sql(`update merchants set fee_bps = ?, fee_fixed = ? where id = ?`, [bps, fixed, owner.merchantId]);
        const fee = platformFee(amount, { bps, fixed });
        const res = await owner.http.post('/v1/charges', { amount, description: 'x', splits });
        if (!splitsFit(amount - fee, splits)) return res.status === 400;
        if (res.status !== 201) return false;
        const c = res.body.charge;
        const [outcome] = await settle([{ txid: c.txid, amount }]);
        if (outcome !== 'paid') return false;
        const resolved = resolveSplits(amount - fee, splits);
        expected.set(owner.merchantId, expected.get(owner.merchantId)! + amount - fee);
        for (const s of resolved) {
          expected.set(s.merchantId, expected.get(s.merchantId)! + s.amount!);
          expected.set(owner.merchantId, expected.get(owner.merchantId)! - s.amount!);
        }
        for (const m of [...pool, owner]) if ((await available(m)) !== expected.get(m.merchantId)) return false;
        return (await verifyLedger(app.orm.em.fork())).ok;
      },
    ),
    { numRuns: 25 },
  );
  t.pass();
});
