import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { waitUntil } from './support/receiver.ts';
import { schemaErrorsAt } from './support/openapi-check.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { insertAutoMandates, insertMandate, type MandateSpec } from './recurring.daily.helpers.ts';
import { runDay } from '../src/recurring/recurring.daily.ts';
import { plusDays } from '../src/recurring/calendar.ts';
import { main } from '../src/ops.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';

// runDay works on every mandate of the database: each test has its own
let app: TestApp;
test.beforeEach(async () => {
  app = await startTestApp();
});
test.afterEach.always(async () => {
  await app?.close();
});

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);
// the day's run as the worker would do it at noon in São Paulo
const run = (day: string) => runDay({ ...app.deps, clock: () => new Date(`${day}T15:00:00Z`) }, app.orm.em.fork(), day);

type Charge = {
  id: string;
  cycle: number;
  due_date: string;
  amount: number;
  status: string;
  automatic: boolean;
  attempts: { date: string; kind: string; status: string }[];
  retries_left: number;
  txid: string;
  charge_id: string;
};
const chargesOf = (mandateId: string) =>
  sql<Charge>(
    `select id, cycle, to_char(due_date, 'YYYY-MM-DD') as due_date, amount, status, automatic, attempts, retries_left,
            txid, charge_id
       from recurring_charges where mandate_id = ? order by cycle, created_at`,
    [mandateId],
  );
const eventsOf = (merchantId: string, type: string) =>
  sql<{ data: Record<string, unknown> }>(`select data from events where merchant_id = ? and type = ? order by id`, [
    merchantId,
    type,
  ]);

async function mandate(spec: Partial<MandateSpec> & { startDate: string }) {
  const m = await createOnboardedMerchant(app);
  return { merchant: m, id: await insertMandate(app.orm.em.fork(), m.merchantId, spec) };
}

test.serial(
  'a monthly mandate is charged leadDays before each cycle, once, for the cycle that starts then',
  async (t) => {
    const { id, merchant } = await mandate({ startDate: '2027-01-31', autoCharge: { amount: null, leadDays: 4 } });
    t.like(await run('2027-01-26'), { created: 0 }, 'planned: its first charge is due on the 27th');
    t.deepEqual(await chargesOf(id), []);
    t.like(await run('2027-01-27'), { created: 1 });
    t.like(await run('2027-01-27'), { created: 0 }, 'the same day again: nothing more');
    t.like(await run('2027-01-28'), { created: 0 });
    const [first] = await chargesOf(id);
    t.like(first, {
      cycle: 0,
      due_date: '2027-01-31',
      amount: 5000,
      status: 'ACTIVE',
      automatic: true,
      retries_left: 0,
    });
    t.like(first.attempts[0], { date: '2027-01-31', kind: 'DUE_DATE', status: 'SCHEDULED' });
    t.regex(first.txid, /^[a-zA-Z0-9]{26,35}$/);
    // the hidden charge carries its money
    const [hidden] = await sql<Record<string, unknown>>(
      `select merchant_id, txid, amount, fee, status, type, expires_at from charges where id = ?`,
      [first.charge_id],
    );
    t.like(hidden, { merchant_id: merchant.merchantId, txid: first.txid, amount: 5000, fee: 50, status: 'PENDING' });
    t.is(hidden.type, 'RECURRING');
    t.is(new Date(hidden.expires_at as string).toISOString(), '2027-02-09T02:59:59.999Z', 'the end of dueDate + 8');
    // the merchant sees it as any recurring charge (the client checks every response against docs/openapi.yaml)
    const shown = await merchant.http.get(`/v1/recurring-charges/${first.id}`);
    t.is(shown.status, 200);
    t.like(shown.body.recurringCharge, { mandateId: id, cycle: 0, dueDate: '2027-01-31', status: 'ACTIVE', fee: null });
    const listed = await merchant.http.get(`/v1/recurring-charges?mandateId=${id}`);
    t.deepEqual(
      listed.body.recurringCharges.map((c: { id: string }) => c.id),
      [first.id],
    );
    t.is((await merchant.http.get('/v1/charges')).body.total, 0, 'its hidden charge is not listed as a charge');
    // February's cycle starts on the 28th (clamped), March's on the 31st
    t.like(await run('2027-02-23'), { created: 0 });
    t.like(await run('2027-02-24'), { created: 1 });
    t.like(await run('2027-03-27'), { created: 1 });
    t.deepEqual(
      (await chargesOf(id)).map((c) => [c.cycle, c.due_date]),
      [
        [0, '2027-01-31'],
        [1, '2027-02-28'],
        [2, '2027-03-31'],
      ],
    );
  },
);

test.serial('leadDays 2 and 10, weekly; fixed and variable amounts; retries from the policy', async (t) => {
  const weekly = await mandate({
    startDate: '2027-05-03',
    frequency: 'WEEKLY',
    autoCharge: { amount: null, leadDays: 2 },
    retryPolicy: 'THREE_IN_SEVEN_DAYS',
  });
  const variable = await mandate({
    startDate: '2027-05-11',
    amount: null,
    minAmount: 100,
    autoCharge: { amount: 1234, leadDays: 10 },
  });
  t.like(await run('2027-05-01'), { created: 2 }, 'the weekly one (May 3) and the variable one (May 11)');
  t.like(await run('2027-05-08'), { created: 1 }, 'the weekly one again (May 10)');
  t.deepEqual(
    (await chargesOf(weekly.id)).map((c) => [c.due_date, c.amount, c.retries_left]),
    [
      ['2027-05-03', 5000, 3],
      ['2027-05-10', 5000, 3],
    ],
  );
  t.deepEqual(
    (await chargesOf(variable.id)).map((c) => [c.due_date, c.amount]),
    [['2027-05-11', 1234]],
  );
});

test.serial('no charge for mandates not APPROVED, without autoCharge, or past their end date', async (t) => {
  const start = '2027-06-10';
  const none = await Promise.all(
    [
      { status: 'CREATED' as const, expiresAt: '2027-12-01T00:00:00Z' },
      { status: 'CANCELED' as const },
      { status: 'REJECTED' as const },
      { autoCharge: null },
    ].map((s) => mandate({ startDate: start, ...s })),
  );
  const ending = await mandate({ startDate: start, endDate: '2027-07-09' });
  t.like(await run('2027-06-06'), { created: 1 }, 'only the APPROVED one with autoCharge');
  for (const m of none) t.deepEqual(await chargesOf(m.id), []);
  t.like(await run('2027-07-06'), { created: 0 }, 'its next cycle (July 10) is after its end date');
  t.is((await chargesOf(ending.id)).length, 1);
  t.like(await run('2027-07-09'), { expired: 0 }, 'still APPROVED on its end date');
  t.like(await run('2027-07-10'), { expired: 1 }, 'the day after its end date');
  const [row] = await sql<{ status: string; history: { status: string }[] }>(
    'select status, history from mandates where id = ?',
    [ending.id],
  );
  t.is(row.status, 'EXPIRED');
  t.deepEqual(
    row.history.map((h) => h.status),
    ['CREATED', 'APPROVED', 'EXPIRED'],
  );
  const [event] = await eventsOf(ending.merchant.merchantId, 'mandate.expired');
  t.like(event.data, { id: ending.id, status: 'EXPIRED', endDate: '2027-07-09' });
  t.deepEqual(schemaErrorsAt('/components/schemas/Mandate', event.data), []);
});

test.serial(
  'approved late: the cycles that start before day + leadDays are skipped; the next one is charged',
  async (t) => {
    const { id } = await mandate({ startDate: '2027-08-05' });
    // first seen on Aug 3: cycle 0 (Aug 5) is only 2 days ahead, leadDays 4
    t.like(await run('2027-08-03'), { created: 0 });
    t.like(await run('2027-09-01'), { created: 1 });
    t.deepEqual(
      (await chargesOf(id)).map((c) => [c.cycle, c.due_date]),
      [[1, '2027-09-05']],
    );
  },
);

test.serial('missed days: a planned cycle still in its window is charged late; one past it is skipped', async (t) => {
  const a = await mandate({ startDate: '2027-10-20' });
  t.like(await run('2027-10-10'), { created: 0 }, 'planned for Oct 16');
  // the worker was down on Oct 16 (and 17): on the 18th the cycle is 2 days ahead, still in its window
  t.like(await run('2027-10-18'), { created: 1 });
  t.deepEqual(
    (await chargesOf(a.id)).map((c) => c.due_date),
    ['2027-10-20'],
  );
  // November's (Nov 20, planned for the 16th) first looked at on the 19th: 1 day ahead, too late
  t.like(await run('2027-11-19'), { created: 0 });
  t.like(await run('2027-12-16'), { created: 1 }, 'December is charged on time');
  t.deepEqual(
    (await chargesOf(a.id)).map((c) => [c.cycle, c.due_date]),
    [
      [0, '2027-10-20'],
      [2, '2027-12-20'],
    ],
  );
});

test.serial('a cycle the merchant already charged is not charged again', async (t) => {
  const { id, merchant } = await mandate({ startDate: '2027-12-10' });
  await run('2027-12-01');
  const chargeId = crypto.randomUUID();
  const txid = chargeId.replaceAll('-', '');
  await sql(
    `insert into charges (id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in,
       expires_at, location, qr_code, type) values (?, now(), now(), ?, ?, 5000, 50, 'x', 'PENDING', 1, now(), '', '', 'RECURRING')`,
    [chargeId, merchant.merchantId, txid],
  );
  await sql(
    `insert into recurring_charges (id, created_at, updated_at, merchant_id, mandate_id, charge_id, txid, cycle, due_date,
       amount, status, attempts, retries_left) values (gen_random_uuid(), now(), now(), ?, ?, ?, ?, 0, '2027-12-10', 5000,
       'ACTIVE', '[]', 0)`,
    [merchant.merchantId, id, chargeId, txid],
  );
  t.like(await run('2027-12-06'), { created: 0 });
  t.deepEqual(
    (await chargesOf(id)).map((c) => [c.cycle, c.automatic]),
    [[0, false]],
  );
  t.is(
    Number(
      (await sql<{ n: string }>(`select count(*) as n from charges where merchant_id = ?`, [merchant.merchantId]))[0].n,
    ),
    1,
    'no hidden charge left behind',
  );
  t.like(await run('2028-01-06'), { created: 1 }, 'the next cycle is');
});

test.serial(
  'expiries: CREATED past expiresAt; charges unpaid by dueDate + 7 expire on dueDate + 8 with their attempt and hidden charge',
  async (t) => {
    const created = await mandate({
      startDate: '2028-03-01',
      status: 'CREATED',
      journey: 'PUSH',
      requestStatus: 'SENT',
      expiresAt: '2028-02-10T13:00:00Z',
    });
    const before = await runDay(
      { ...app.deps, clock: () => new Date('2028-02-10T12:59:00Z') },
      app.orm.em.fork(),
      '2028-02-10',
    );
    t.is(before.expired, 0, 'a minute before expiresAt');
    await runDay({ ...app.deps, clock: () => new Date('2028-02-10T13:00:00Z') }, app.orm.em.fork(), '2028-02-10');
    const [m] = await sql<{ status: string; request_status: string }>(
      'select status, request_status from mandates where id = ?',
      [created.id],
    );
    t.deepEqual({ ...m }, { status: 'EXPIRED', request_status: 'EXPIRED' });
    t.is((await eventsOf(created.merchant.merchantId, 'mandate.expired')).length, 1);

    const charged = await mandate({ startDate: '2028-04-10', retryPolicy: 'THREE_IN_SEVEN_DAYS' });
    const paid = await mandate({ startDate: '2028-04-10' });
    await run('2028-04-06');
    const [p] = await chargesOf(paid.id);
    await sql(`update recurring_charges set status = 'PAID' where id = ?`, [p.id]);
    await sql(`update charges set status = 'PAID' where id = ?`, [p.charge_id]);
    t.like(await run('2028-04-17'), { expired: 0 }, 'dueDate + 7: still open');
    t.like(await run('2028-04-18'), { expired: 1 }, 'dueDate + 8');
    t.like(await run('2028-04-18'), { expired: 0 }, 'once');
    const [c] = await chargesOf(charged.id);
    t.is(c.status, 'EXPIRED');
    t.like(c.attempts[0], { kind: 'DUE_DATE', status: 'CANCELED' });
    t.is((await chargesOf(paid.id))[0].status, 'PAID');
    const [hidden] = await sql<{ status: string; canceled_at: string }>(
      'select status, canceled_at from charges where id = ?',
      [c.charge_id],
    );
    t.is(hidden.status, 'CANCELED');
    t.truthy(hidden.canceled_at);
    const [event] = await eventsOf(charged.merchant.merchantId, 'recurring_charge.expired');
    t.like(event.data, { id: c.id, status: 'EXPIRED', dueDate: '2028-04-10', cycle: 0, refundedAmount: 0 });
    t.like((event.data.attempts as object[])[0], { status: 'CANCELED' });
    t.deepEqual(schemaErrorsAt('/components/schemas/RecurringCharge', event.data), []);
  },
);

test.serial('two runs at once, and runs again: every mandate charged exactly once', async (t) => {
  const m = await createOnboardedMerchant(app);
  await insertAutoMandates(app.orm.em.fork(), m.merchantId, 2500, { startDate: '2029-01-15' });
  const day = plusDays('2029-01-15', -4);
  const [a, b] = await Promise.all([run(day), run(day)]);
  t.is(a.created + b.created, 2500);
  t.true(a.created > 0 && b.created > 0, `both runs worked (${a.created} + ${b.created})`);
  t.like(await run(day), { created: 0 });
  const [counts] = await sql<{ charges: string; mandates: string; hidden: string }>(
    `select count(*) as charges, count(distinct mandate_id) as mandates,
            (select count(*) from charges where merchant_id = ?) as hidden
       from recurring_charges where merchant_id = ?`,
    [m.merchantId, m.merchantId],
  );
  t.deepEqual({ ...counts }, { charges: '2500', mandates: '2500', hidden: '2500' });
});

// The operator command, in-process (as test/ops.test.ts runs it) against the test database.
async function ops(env: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env: { DATABASE_URL: app.databaseUrl, NODE_ENV: 'test', ...env },
  });
  return { code, err: err.join('\n'), json: code === 0 ? JSON.parse(out.join('\n')) : undefined };
}

test.serial('recurring:run [--date] prints { created, expired }; another day only with the sandbox', async (t) => {
  const { id } = await mandate({ startDate: '2030-03-10' });
  const today = await ops({}, 'recurring:run');
  t.is(today.code, 0, today.err);
  t.deepEqual(Object.keys(today.json), ['created', 'expired']);
  t.deepEqual((await ops({}, 'recurring:run', '--date', '2030-03-06')).json, { created: 1, expired: 0 });
  t.deepEqual((await ops({}, 'recurring:run', '--date', '2030-03-06')).json, { created: 0, expired: 0 });
  t.is((await chargesOf(id)).length, 1);
  const bad = await ops({}, 'recurring:run', '--date', '2030-02-30');
  t.is(bad.code, 2);
  t.regex(bad.err, /--date must be a date/);
  const psp = await ops({ ACQUIRER: 'apipix' }, 'recurring:run', '--date', '2030-03-06');
  t.is(psp.code, 1, psp.err);
  t.regex(psp.err, /only with ACQUIRER=sandbox/);
});

test.serial(
  'the worker runs the day hourly at minute 5, São Paulo time; a kicked run charges what is due today',
  async (t) => {
    const today = saoPauloDate(new Date());
    const { id } = await mandate({ startDate: plusDays(today, 4) });
    const stop = await startBackground(app, 'worker');
    t.teardown(stop);
    const [schedule] = await sql<{ cron: string; timezone: string }>(
      'select cron, timezone from pgboss.schedule where name = ?',
      [QUEUES.recurringDaily],
    );
    t.deepEqual({ ...schedule }, { cron: '5 * * * *', timezone: 'America/Sao_Paulo' });
    await app.boss.send(QUEUES.recurringDaily, {});
    const charges = await waitUntil(async () => (await chargesOf(id)).length > 0 && chargesOf(id), 20_000, 'charged');
    t.like(charges[0], { cycle: 0, due_date: plusDays(today, 4), automatic: true });
  },
);

test.serial('with a PSP: the charge is CREATED and its cobr is registered by a job committed with it', async (t) => {
  const { id } = await mandate({ startDate: '2032-02-29', frequency: 'ANNUAL' });
  const psp = { ...app.deps, config: { ...app.config, acquirer: 'apipix' as const } };
  const day = '2032-02-25';
  t.like(await runDay({ ...psp, clock: () => new Date(`${day}T15:00:00Z`) }, app.orm.em.fork(), day), { created: 1 });
  const [c] = await chargesOf(id);
  t.like(c, { status: 'CREATED', due_date: '2032-02-29' });
  const jobs = await sql<{ data: { op: string; request: Record<string, unknown> } }>(
    'select data from pgboss.job where name = ?',
    [QUEUES.recurringChargeSync],
  );
  t.is(jobs.length, 1);
  t.like(jobs[0].data, { op: 'create', request: { txid: c.txid, dueDate: '2032-02-29', amount: 5000 } });
  t.like(jobs[0].data.request, { payer: { name: 'Maria Pagadora', document: '12345678909' } });
  // the next year's (Feb 28, 2033) is charged on Feb 24
  t.like(await runDay({ ...psp, clock: () => new Date('2033-02-24T15:00:00Z') }, app.orm.em.fork(), '2033-02-24'), {
    created: 1,
  });
});

test.serial(
  'a blocked merchant is not charged; unblocked, its cycle still in the window is charged late',
  async (t) => {
    const { id, merchant } = await mandate({ startDate: '2033-06-10' });
    await run('2033-05-30');
    await sql(`update merchants set status = 'BLOCKED' where id = ?`, [merchant.merchantId]);
    t.like(await run('2033-06-06'), { created: 0 });
    t.like(await run('2033-06-07'), { created: 0 });
    await sql(`update merchants set status = 'ACTIVE' where id = ?`, [merchant.merchantId]);
    t.like(await run('2033-06-08'), { created: 1 }, 'June 10 is still 2 days ahead');
    t.deepEqual(
      (await chargesOf(id)).map((c) => c.due_date),
      ['2033-06-10'],
    );
  },
);
