// Every amount and time a payment notification may carry settles: credited, or recorded as unmatched and returned.
// Nothing is left as a job that fails forever. The HMAC route with the sandbox acquirer and a real worker.
import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { ops, waitFor } from './withdrawals.helpers.ts';
import { sandboxEndToEndId } from '../src/acquirer/sandbox.ts';
import { signAcquirerBody, SIGNATURE_HEADER } from '../src/payments/notifications.routes.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import { QUEUES } from '../src/platform/queue.ts';

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

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);

function notify(items: object[]) {
  const body = JSON.stringify({ pix: items });
  return client(app.baseUrl).call('POST', '/v1/acquirer/notifications', body, {
    'content-type': 'application/json',
    [SIGNATURE_HEADER]: signAcquirerBody(app.config.acquirerWebhookSecret, body),
  });
}

async function ledgerClean(t: import('ava').ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
}

const unmatched = (e2e: string) =>
  waitFor(`unmatched ${e2e}`, async () => {
    const [u] = await sql<{ amount: string; reason: string; status: string }>(
      'select amount, reason, status from unmatched_payments where end_to_end_id = ?',
      [e2e],
    );
    return u?.status === 'RETURNED' && u;
  });

test.serial(
  'the largest charge is paid by 21474836.47; 21474836.48 and 9999999999.99 pay nothing and go back to the payer',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const created = await m.http.post('/v1/charges', { amount: 2_147_483_647, description: 'O maior' });
    t.is(created.status, 201);
    const c = created.body.charge;
    const other = (await m.http.post('/v1/charges', { amount: 1000, description: 'Outro' })).body.charge;
    const at = new Date().toISOString();
    const e2e = [sandboxEndToEndId(), sandboxEndToEndId(), sandboxEndToEndId(), sandboxEndToEndId()];
    const res = await notify([
      { endToEndId: e2e[0], txid: c.txid, valor: '21474836.47', horario: at },
      { endToEndId: e2e[1], txid: other.txid, valor: '21474836.48', horario: at }, // beyond a 32-bit column
      { endToEndId: e2e[2], txid: other.txid, valor: '9999999999.99', horario: at }, // the standard's largest
      { endToEndId: e2e[3], txid: null, valor: '9999999999.99', horario: at }, // and paying no charge at all
    ]);
    t.is(res.status, 200);
    await waitFor('PAID', async () => (await m.http.get(`/v1/charges/${c.id}`)).body.charge.status === 'PAID');
    const fee = (await m.http.get(`/v1/charges/${c.id}`)).body.charge.fee;
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 2_147_483_647 - fee);
    t.like(await unmatched(e2e[1]), { amount: '2147483648', reason: 'AMOUNT_MISMATCH' });
    t.like(await unmatched(e2e[2]), { amount: '999999999999', reason: 'AMOUNT_MISMATCH' });
    t.like(await unmatched(e2e[3]), { amount: '999999999999', reason: 'UNKNOWN_CHARGE' });
    const listed = await ops(app, 'payments:unmatched', '--status', 'RETURNED');
    t.is(listed.code, 0, listed.err);
    const shown = listed.json.payments.find((p: { endToEndId: string }) => p.endToEndId === e2e[2]);
    t.like(shown, { amount: 999_999_999_999, refund: { status: 'COMPLETED' } });
    t.is((await m.http.get(`/v1/charges/${other.id}`)).body.charge.status, 'PENDING');
    await ledgerClean(t);
  },
);

test.serial('a time in the year 9999 pays as of the moment the payment was learnt, never later', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = (await m.http.post('/v1/charges', { amount: 1500, description: 'Pedido' })).body.charge;
  const before = Date.now();
  t.is(
    (await notify([{ endToEndId: sandboxEndToEndId(), txid: c.txid, valor: '15.00', horario: '9999-12-31T23:59:59Z' }]))
      .status,
    200,
  );
  const paid = await waitFor('PAID', async () => {
    const charge = (await m.http.get(`/v1/charges/${c.id}`)).body.charge;
    return charge.status === 'PAID' && charge;
  });
  t.true(Date.parse(paid.paidAt) >= before - 1000 && Date.parse(paid.paidAt) <= Date.now(), paid.paidAt);
  // the year 10000 and extended years are no RFC 3339 time: refused at this edge, nothing queued
  for (const horario of ['10000-01-01T00:00:00Z', '+020000-01-01T00:00:00Z'])
    t.is((await notify([{ endToEndId: sandboxEndToEndId(), txid: c.txid, valor: '15.00', horario }])).status, 400);
  await ledgerClean(t);
});

test.serial(
  'a notification whose settlement fails on every retry is recorded as unmatched, returned, and counted',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = (await m.http.post('/v1/charges', { amount: 2500, description: 'Pedido' })).body.charge;
    // a database that refuses this one charge's payment, whatever is tried
    await sql(`create or replace function refuse_pay() returns trigger as $$ begin
      if new.txid = '${c.txid}' and new.status = 'PAID' then raise exception 'refused by the test'; end if;
      return new; end; $$ language plpgsql`);
    await sql('create trigger refuse_pay before update on charges for each row execute function refuse_pay()');
    t.teardown(() => sql('drop trigger if exists refuse_pay on charges'));
    const n = { txid: c.txid, endToEndId: sandboxEndToEndId(), amount: 2500, paidAt: new Date().toISOString() };
    await app.boss.send(QUEUES.acquirerNotification, n, { retryLimit: 1, retryDelay: 0 }); // its retries, quickly
    const u = await unmatched(n.endToEndId);
    t.like(u, { amount: '2500', reason: 'UNSETTLED' });
    t.is((await m.http.get(`/v1/charges/${c.id}`)).body.charge.status, 'PENDING');
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 0);
    const [job] = await sql<{ state: string }>(
      `select state from pgboss.job where name = ? and data->>'endToEndId' = ?`,
      [QUEUES.paymentUnsettled, n.endToEndId],
    );
    t.is(job.state, 'completed');
    t.is(
      (await sql(`select 1 from pgboss.job where name = 'dead.letter' and data->>'endToEndId' = ?`, [n.endToEndId]))
        .length,
      0,
    );
    await ledgerClean(t);
  },
);
