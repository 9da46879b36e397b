// What the PSP itself answers (GET /v2/pix/{e2eid}, GET /v2/pix) may carry any amount the API Pix allows and odd
// times: every such Pix is settled, or recorded for an operator, never left as a job that fails forever. The service
// with ACQUIRER=apipix, its worker (with METRICS_PORT) and the PSP stub over mTLS.
import test from 'ava';
import { startTestApp, startBackground, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { client } from './support/client.ts';
import { freePort } from './support/procs.ts';
import { ops, waitFor } from './withdrawals.helpers.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';
import { QUEUES } from '../src/platform/queue.ts';
import { verifyLedger } from '../src/ledger/ledger.ops.ts';
import type { PixWire } from '../src/acquirer/apipix/types.ts';

const TOKEN = 'tok_' + 'b0a7d5e1'.repeat(5);
let certs: TestCerts;
let stub: ApiPixStub;
let app: TestApp;
let stopWorker: () => Promise<void>;
let metricsPort = 0;

test.before(async () => {
  certs = createTestCerts();
  stub = await startApiPixStub({ certs });
  const env = { ...apiPixEnv(stub, certs.dir, TOKEN), APIPIX_TIMEOUT_MS: '2000' };
  app = await startTestApp(env);
  metricsPort = await freePort();
  stopWorker = await startBackground(app, 'worker', { ...env, METRICS_PORT: String(metricsPort) });
  stub.state.webhooks.set(stub.pixKey, { webhookUrl: `${app.baseUrl}/v1/acquirer/apipix/${TOKEN}` } as never);
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
  await stub?.close();
  certs?.remove();
});
test.afterEach.always((t) => {
  stub.clearFailures();
  t.deepEqual(stub.schemaViolations, [], 'every body the PSP received conforms to the API Pix schemas');
});

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) =>
  app.orm.em.fork().execute<T[]>(q, params);

async function ledgerClean(t: import('ava').ExecutionContext) {
  const report = await verifyLedger(app.orm.em.fork());
  t.true(report.ok, JSON.stringify(report.problems));
}

type Merchant = Awaited<ReturnType<typeof createOnboardedMerchant>>;
const charge = async (m: Merchant, amount: number) =>
  (await m.http.post('/v1/charges', { amount, description: 'Pedido' })).body.charge as { id: string; txid: string };
const statusOf = async (m: Merchant, id: string) => (await m.http.get(`/v1/charges/${id}`)).body.charge;
// the PSP's webhook, as it would POST it (the worker re-reads each Pix from the stub)
const notify = (pix: PixWire[]) => client(app.baseUrl).post(`/v1/acquirer/apipix/${TOKEN}/pix`, { pix });

// A Pix the payer made, changed as a PSP could answer it, then notified.
async function pixWith(txid: string, change: Partial<PixWire>, amount?: number) {
  const { pix } = await stub.pay(txid, { notify: false, ...(amount === undefined ? {} : { amount }) });
  Object.assign(stub.state.pix.get(pix.endToEndId)!, change);
  return stub.state.pix.get(pix.endToEndId)!;
}

// A devolução the worker asked for, settled DEVOLVIDO by the PSP; the unmatched payment RETURNED.
async function returned(p: PixWire) {
  const d = await waitFor(
    `devolução of ${p.endToEndId}`,
    async () => stub.state.pix.get(p.endToEndId)?.devolucoes?.[0],
  );
  await stub.settleDevolucao(p.endToEndId, d.id, 'DEVOLVIDO');
  const u = await waitFor(`RETURNED ${p.endToEndId}`, async () => {
    const [row] = await sql<{ status: string; reason: string; amount: string }>(
      'select status, reason, amount from unmatched_payments where end_to_end_id = ?',
      [p.endToEndId],
    );
    return row?.status === 'RETURNED' && row;
  });
  return { devolucao: d, unmatched: u };
}

const sample = async (name: string, labels: Record<string, string>) => {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${wanted}}`));
  return line ? Number(line.split(' ').pop()) : undefined;
};

test.serial('amounts from the PSP: 21474836.47 pays, 21474836.48 and 9999999999.99 are returned in full', async (t) => {
  const m = await createOnboardedMerchant(app);
  const big = await charge(m, 2_147_483_647);
  const small = await charge(m, 1000);
  const paying = await pixWith(big.txid, {}, 2_147_483_647);
  const over = await pixWith(small.txid, {}, 2_147_483_648);
  const largest = await pixWith(`${small.txid.slice(0, -3)}zzz`, {}, 999_999_999_999); // no such charge
  t.is((await notify([paying, over, largest])).status, 200);
  await waitFor('PAID', async () => (await statusOf(m, big.id)).status === 'PAID');
  const a = await returned(over);
  t.like(a.devolucao, { valor: '21474836.48', natureza: 'ORIGINAL' });
  t.like(a.unmatched, { reason: 'AMOUNT_MISMATCH', amount: '2147483648' });
  const b = await returned(largest);
  t.is(b.devolucao.valor, '9999999999.99');
  t.like(b.unmatched, { reason: 'UNKNOWN_CHARGE', amount: '999999999999' });
  t.is((await statusOf(m, small.id)).status, 'PENDING');
  await ledgerClean(t);
});

test.serial(
  'odd times from the PSP (9999, 10000, extended years, none) settle as of when they were learnt',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const odd = ['9999-12-31T23:59:59Z', '10000-01-01T00:00:00Z', '+020000-01-01T00:00:00Z', 'ontem', undefined];
    const charges = await Promise.all(odd.map(() => charge(m, 700)));
    const before = Date.now();
    const pix = [];
    for (const [i, horario] of odd.entries()) pix.push(await pixWith(charges[i].txid, { horario: horario as string }));
    t.is((await notify(pix)).status, 200);
    for (const c of charges) {
      const paid = await waitFor('PAID', async () => {
        const s = await statusOf(m, c.id);
        return s.status === 'PAID' && s;
      });
      t.true(Date.parse(paid.paidAt) >= before - 1000 && Date.parse(paid.paidAt) <= Date.now(), paid.paidAt);
    }
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 5 * (700 - 7));
    await ledgerClean(t);
  },
);

test.serial('a listing with a Pix that breaks the standard still reconciles the rest of its page', async (t) => {
  const m = await createOnboardedMerchant(app);
  const good = await charge(m, 1234);
  const bad = await charge(m, 4321);
  await stub.pay(good.txid, { notify: false });
  const broken = await pixWith(bad.txid, { valor: '43.2' }); // not ^\d{1,10}\.\d{2}$
  await app.boss.send(QUEUES.paymentsReconcile, {});
  await waitFor('reconciled', async () => (await statusOf(m, good.id)).status === 'PAID');
  // the unreadable one is asked about on its own (and, unreadable again, ends HELD after its retries)
  const [job] = await waitFor('its job', () =>
    sql(`select 1 from pgboss.job where name = ? and data->>'endToEndId' = ?`, [
      QUEUES.acquirerNotification,
      broken.endToEndId,
    ]).then((r) => r.length > 0 && r),
  );
  t.truthy(job);
  t.is((await statusOf(m, bad.id)).status, 'PENDING');
  await ledgerClean(t);
});

test.serial(
  'a Pix the PSP never confirms on any retry is HELD for an operator and counted; it settles once the PSP answers',
  async (t) => {
    const m = await createOnboardedMerchant(app);
    const c = await charge(m, 3000);
    const { pix } = await stub.pay(c.txid, { notify: false });
    const heldBefore = (await sample('pix_payments_unsettled_total', { outcome: 'held' })) ?? 0;
    stub.failNext(1000, { status: 503 }, { route: 'GET /v2/pix/:e2eid' });
    const hint = { txid: c.txid, endToEndId: pix.endToEndId, amount: 3000, paidAt: pix.horario };
    await app.boss.send(QUEUES.acquirerNotification, hint, { retryLimit: 1, retryDelay: 0 });
    const held = await waitFor('HELD', async () => {
      const listed = await ops(app, 'payments:unmatched', '--status', 'HELD');
      return listed.json.payments.find((p: { endToEndId: string }) => p.endToEndId === pix.endToEndId);
    });
    t.like(held, { reason: 'UNCONFIRMED', status: 'HELD', amount: 3000, refund: null });
    t.is(await sample('pix_payments_unsettled_total', { outcome: 'held' }), heldBefore + 1);
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 0, 'nothing booked');
    await ledgerClean(t);

    // the PSP answers again: reconciliation lists the Pix, it pays its charge, the HELD record goes
    stub.clearFailures();
    await app.boss.send(QUEUES.paymentsReconcile, {});
    await waitFor('PAID', async () => (await statusOf(m, c.id)).status === 'PAID');
    t.is((await sql('select 1 from unmatched_payments where end_to_end_id = ?', [pix.endToEndId])).length, 0);
    t.is((await m.http.get('/v1/merchants/me/balance')).body.available, 3000 - 30);
    await ledgerClean(t);
  },
);
