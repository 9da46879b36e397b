import test from 'ava';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Received, type Receiver } from './support/receiver.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';
import type { EventType } from '../src/webhooks/catalog.ts';
import { eventSchemas } from '../src/webhooks/catalog-schemas.ts';
import { HEADER_MESSAGES } from '../src/webhooks/webhook-headers.ts';

// Webhook self-service (contract): headers, delivery listing, resend, recover, test events, secret rotation and
// automatic disabling, against real receivers and one daemon. The schedule is compressed 100 000x (eight attempts in
// about a second) and auto-disable needs 3 final failures over 24 h x 0.00001 = 0.864 s.
let app: TestApp;
let stopDaemon: () => Promise<void>;
const receivers: Receiver[] = [];
test.before(async () => {
  app = await startTestApp();
  stopDaemon = await startBackground(app, 'webhooks', {
    WEBHOOK_RETRY_SCALE: '0.00001',
    WEBHOOK_TIMEOUT_MS: '500',
    WEBHOOK_DISABLE_MIN_FAILURES: '3',
    WEBHOOK_DISABLE_AFTER_HOURS: '24',
  });
});
test.after.always(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stopDaemon?.();
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const emit = (merchantId: string, type: EventType, data: Record<string, unknown> = {}) =>
  app.orm.em.fork().transactional((tx) => recordEvent(tx, app.boss, merchantId, type, data));

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});
const verifies = (secret: string, r: Received) => {
  try {
    new StandardWebhook(secret.slice('wh_'.length)).verify(r.body, headersOf(r));
    return true;
  } catch {
    return false;
  }
};

type Log = { id: string; deliveryId: string; status: string; attempts: number; event: string; success: boolean };
const deliveries = async (m: Awaited<ReturnType<typeof createMerchant>>, id: string, query = '') =>
  (await m.http.get(`${PATH}/${id}/deliveries${query}`)).body as { total: number; deliveries: Log[] };
const settled = (m: Awaited<ReturnType<typeof createMerchant>>, id: string, count: number) =>
  waitUntil(
    async () => {
      const page = await deliveries(m, id, '?limit=100');
      return page.total === count && page.deliveries.every((d) => d.status !== 'PENDING') && page;
    },
    60_000, // generous: a loaded machine (the suite runs beside others) slows the daemon and the receivers
    `${count} deliveries to end`,
  );

test('custom headers: validated with clear 400s, listed, sent with every delivery; null clears them', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver();
  const tooMany = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v']));
  for (const [headers, message] of [
    [[], HEADER_MESSAGES.notObject],
    ['x', HEADER_MESSAGES.notObject],
    [tooMany, HEADER_MESSAGES.tooMany],
    [{ 'X Bad': 'v' }, HEADER_MESSAGES.name('X Bad')],
    [{ ['x'.repeat(65)]: 'v' }, HEADER_MESSAGES.name('x'.repeat(65))],
    [{ 'Webhook-Signature': 'v' }, HEADER_MESSAGES.reserved('Webhook-Signature')],
    [{ 'Content-Type': 'text/plain' }, HEADER_MESSAGES.reserved('Content-Type')],
    [{ Host: 'evil' }, HEADER_MESSAGES.reserved('Host')],
    [{ 'X-A': '1', 'x-a': '2' }, HEADER_MESSAGES.duplicate('x-a')],
    [{ 'X-A': 'ç' }, HEADER_MESSAGES.value('X-A')],
    [{ 'X-A': 'v'.repeat(1001) }, HEADER_MESSAGES.value('X-A')],
    [{ 'X-A': 1 }, HEADER_MESSAGES.value('X-A')],
  ] as const) {
    const res = await m.http.post(PATH, { url: r.url(), headers });
    t.is(res.status, 400, JSON.stringify(headers).slice(0, 80));
    t.deepEqual(res.body.errors, [{ field: 'headers', message }]);
  }
  // control characters are refused before (src/platform/input-guard.ts), naming the header too
  const control = await m.http.post(PATH, { url: r.url(), headers: { 'X-A': 'line\nbreak' } });
  t.is(control.status, 400);
  t.regex(control.body.errors[0].field, /^headers/);
  t.is((await m.http.get(PATH)).body.webhooks.length, 0, 'a refused creation creates nothing');

  const headers = { Authorization: 'Bearer segredo-do-gateway', 'X-Tenant': 'loja-1' };
  const w = (await m.http.post(PATH, { url: r.url(), headers })).body.webhook;
  t.deepEqual(w.headers, headers);
  t.deepEqual((await m.http.get(PATH)).body.webhooks[0].headers, headers);
  await emit(m.merchantId, 'pixkey.updated', { n: 1 });
  const [first] = await r.waitFor(1);
  t.is(first.headers.authorization, 'Bearer segredo-do-gateway');
  t.is(first.headers['x-tenant'], 'loja-1');
  t.true(verifies(w.secret, first), 'still signed as usual');

  const bad = await m.http.patch(`${PATH}/${w.id}`, { headers: { 'User-Agent': 'x' } });
  t.is(bad.status, 400);
  t.deepEqual((await m.http.get(PATH)).body.webhooks[0].headers, headers, 'a refused PATCH changes nothing');
  const cleared = await m.http.patch(`${PATH}/${w.id}`, { headers: null });
  t.is(cleared.body.webhook.headers, null);
  await emit(m.merchantId, 'pixkey.updated', { n: 2 });
  // the delivery of the second event (a retry of the first, loaded before the PATCH, may come in between)
  const second = await waitUntil(
    async () => r.requests.find((q) => JSON.parse(q.body).data.n === 2),
    60_000,
    'the second event',
  );
  t.is(second.headers.authorization, undefined);
  t.is(second.headers['x-tenant'], undefined);
});

test('rateLimit: an integer from 1 to 1000 or null, on create and PATCH', async (t) => {
  const m = await createMerchant(app);
  for (const rateLimit of [0, 1001, 1.5, '10', true]) {
    const res = await m.http.post(PATH, { url: 'http://127.0.0.1:9/x', rateLimit });
    t.is(res.status, 400, String(rateLimit));
    t.is(res.body.errors[0].field, 'rateLimit');
  }
  const w = (await m.http.post(PATH, { url: 'http://127.0.0.1:9/x', rateLimit: 1000 })).body.webhook;
  t.is(w.rateLimit, 1000);
  t.is((await m.http.patch(`${PATH}/${w.id}`, { rateLimit: 1 })).body.webhook.rateLimit, 1);
  t.is((await m.http.patch(`${PATH}/${w.id}`, { rateLimit: null })).body.webhook.rateLimit, null);
  t.is((await m.http.get(PATH)).body.webhooks[0].rateLimit, null);
});

test('the deliveries listing pages through every log, filtered by status and event', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver((req) => (JSON.parse(req.body).event === 'withdraw.failed' ? { status: 500 } : {}));
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  for (let i = 0; i < 25; i++) await emit(m.merchantId, 'charge.paid', { seq: i });
  for (let i = 0; i < 3; i++) await emit(m.merchantId, 'withdraw.failed', { seq: 100 + i });
  await settled(m, w.id, 28);

  const first = await m.http.get(`${PATH}/${w.id}/deliveries?limit=10`);
  t.is(first.status, 200);
  t.like(first.body, { page: 1, limit: 10, total: 28 });
  t.is(first.body.deliveries.length, 10);
  const third = (await m.http.get(`${PATH}/${w.id}/deliveries?limit=10&page=3`)).body;
  t.is(third.deliveries.length, 8);
  const seqs = [...first.body.deliveries, ...third.deliveries].map((d: { payload: string }) => JSON.parse(d.payload));
  t.deepEqual(seqs.at(0).data, { seq: 102 }, 'newest first');
  t.deepEqual(seqs.at(-1).data, { seq: 0 });
  t.is((await deliveries(m, w.id, '?limit=10&page=4')).deliveries.length, 0, 'past the end: empty');

  const failed = await deliveries(m, w.id, '?status=FAILED');
  t.is(failed.total, 3);
  t.true(failed.deliveries.every((d) => d.event === 'withdraw.failed' && d.attempts === 8 && !d.success));
  t.like(failed.deliveries[0], { status: 'FAILED', nextAttemptAt: null });
  t.is((await deliveries(m, w.id, '?status=SUCCEEDED')).total, 25);
  t.is((await deliveries(m, w.id, '?event=charge.paid&status=SUCCEEDED')).total, 25);
  t.is((await deliveries(m, w.id, '?event=withdraw.failed&status=SUCCEEDED')).total, 0);
  t.is((await deliveries(m, w.id, '?status=PENDING')).total, 0);

  for (const q of ['status=DONE', 'event=charge.created', 'limit=101', 'page=0', 'status=FAILED&status=PENDING']) {
    const res = await m.http.get(`${PATH}/${w.id}/deliveries?${q}`);
    t.is(res.status, 400, q);
  }
  const other = await createMerchant(app);
  t.is((await other.http.get(`${PATH}/${w.id}/deliveries`)).status, 404, "another merchant's webhook");
  t.is((await m.http.get(`${PATH}/not-a-uuid/deliveries`)).status, 404);
});

test('resend: the same webhook-id with a fresh signature, attempts + 1; a delivery still PENDING is 409', async (t) => {
  const m = await createMerchant(app);
  let answer = 500;
  const r = await receiver(() => ({ status: answer }));
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  await emit(m.merchantId, 'charge.paid', { id: 'c1' });
  const [failed] = (await settled(m, w.id, 1)).deliveries;
  t.like(failed, { status: 'FAILED', attempts: 8 });
  const before = r.requests.length;

  answer = 200;
  await new Promise((res) => setTimeout(res, 1000)); // a new second: the timestamp (unix seconds) must change
  const res = await m.http.post(`${PATH}/${w.id}/deliveries/${failed.deliveryId}/resend`);
  t.is(res.status, 202);
  t.like(res.body.delivery, { id: failed.id, deliveryId: failed.deliveryId, status: 'PENDING' });
  const [again] = (await r.waitFor(before + 1)).slice(before);
  t.is(again.headers['webhook-id'], failed.deliveryId, 'same webhook-id: the receiver deduplicates on it');
  t.true(Number(again.headers['webhook-timestamp']) > Number(r.requests[before - 1].headers['webhook-timestamp']));
  t.not(again.headers['webhook-signature'], r.requests[before - 1].headers['webhook-signature']);
  t.true(verifies(w.secret, again));
  const [done] = (await settled(m, w.id, 1)).deliveries;
  t.like(done, { status: 'SUCCEEDED', attempts: 9, success: true });

  // by its log id too; a success can be resent (the receiver lost it), once
  const twice = await m.http.post(`${PATH}/${w.id}/deliveries/${failed.id}/resend`);
  t.is(twice.status, 202);
  await r.waitFor(before + 2);
  t.like((await settled(m, w.id, 1)).deliveries[0], { status: 'SUCCEEDED', attempts: 10 });

  // a delivery in flight (the receiver hangs) is PENDING: its own attempt is scheduled
  r.reply(() => ({ hang: true }));
  await emit(m.merchantId, 'charge.paid', { id: 'c2' });
  await r.waitFor(before + 3);
  const pending = (await deliveries(m, w.id, '?status=PENDING')).deliveries[0];
  const conflict = await m.http.post(`${PATH}/${w.id}/deliveries/${pending.id}/resend`);
  t.is(conflict.status, 409);
  t.regex(conflict.body.message, /pendente/);
  r.reply(() => ({ status: 200 }));

  t.is((await m.http.post(`${PATH}/${w.id}/deliveries/msg_${'0'.repeat(32)}/resend`)).status, 404);
  t.is((await m.http.post(`${PATH}/${w.id}/deliveries/${crypto.randomUUID()}/resend`)).status, 404);
  const other = await createMerchant(app);
  t.is((await other.http.post(`${PATH}/${w.id}/deliveries/${failed.id}/resend`)).status, 404);
  await m.http.patch(`${PATH}/${w.id}`, { status: 'INACTIVE' });
  const inactive = await m.http.post(`${PATH}/${w.id}/deliveries/${failed.id}/resend`);
  t.is(inactive.status, 409);
  t.regex(inactive.body.message, /inativo/);
});

test('recover: re-queues the FAILED deliveries created in the window, each under its webhook-id', async (t) => {
  const m = await createMerchant(app);
  let answer = 503;
  const r = await receiver(() => ({ status: answer }));
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  await emit(m.merchantId, 'withdraw.failed', { seq: 0 });
  await settled(m, w.id, 1);
  const since = new Date().toISOString();
  for (let i = 1; i <= 3; i++) await emit(m.merchantId, 'withdraw.failed', { seq: i });
  const logs = (await settled(m, w.id, 4)).deliveries;
  t.true(logs.every((d) => d.status === 'FAILED'));
  const inWindow = logs
    .slice(0, 3)
    .map((d) => d.deliveryId)
    .sort();

  for (const body of [{}, { since: 'ontem' }, { since, until: since }, { since, until: '2020-01-01T00:00:00Z' }]) {
    t.is((await m.http.post(`${PATH}/${w.id}/recover`, body)).status, 400, JSON.stringify(body));
  }
  answer = 200;
  // four final failures may have disabled it (auto-disable needs 3 over 0.864 s here): re-enabled, as a merchant would
  await m.http.patch(`${PATH}/${w.id}`, { status: 'ACTIVE' });
  const before = r.requests.length;
  const res = await m.http.post(`${PATH}/${w.id}/recover`, { since });
  t.is(res.status, 202);
  t.deepEqual(res.body, { recovered: 3 });
  const resent = (await r.waitFor(before + 3)).slice(before);
  t.deepEqual(resent.map((q) => String(q.headers['webhook-id'])).sort(), inWindow);
  const after = (await settled(m, w.id, 4)).deliveries;
  t.deepEqual(
    after.map((d) => d.status),
    ['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'FAILED'],
  );
  t.deepEqual((await m.http.post(`${PATH}/${w.id}/recover`, { since })).body, { recovered: 0 }, 'nothing twice');
  await new Promise((res) => setTimeout(res, 300));
  t.is(r.requests.length, before + 3, 'the delivery outside the window was not sent');
});

test('test: the catalogue example as a normal, signed, logged delivery that is no event', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver();
  const w = (await m.http.post(PATH, { url: r.url(), headers: { 'X-Env': 'homolog' } })).body.webhook;
  t.is((await m.http.post(`${PATH}/${w.id}/test`, {})).status, 400);
  t.is((await m.http.post(`${PATH}/${w.id}/test`, { event: 'charge.created' })).status, 400);
  const res = await m.http.post(`${PATH}/${w.id}/test`, { event: 'withdraw.completed' });
  t.is(res.status, 202);
  t.like(res.body.delivery, { event: 'withdraw.completed', status: 'PENDING', attempts: 0 });
  const [req] = await r.waitFor(1);
  t.true(verifies(w.secret, req));
  t.is(req.headers['x-env'], 'homolog');
  t.is(req.headers['webhook-id'], res.body.delivery.deliveryId);
  const body = JSON.parse(req.body);
  t.is(body.event, 'withdraw.completed');
  t.deepEqual(body.data, eventSchemas().get('withdraw.completed')!.example.data);
  t.like((await settled(m, w.id, 1)).deliveries[0], { status: 'SUCCEEDED', attempts: 1 });
  t.is((await m.http.get(`/v1/events/${body.id}`)).status, 404, 'no event happened');
  t.is((await m.http.get('/v1/events')).body.total, 0);
});

test('secret rotation: during the overlap every delivery verifies with either secret; overlap 0 retires the old one', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver();
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  for (const overlapSeconds of [-1, 86_401, 1.5, '60']) {
    const res = await m.http.post(`${PATH}/${w.id}/secret/rotate`, { overlapSeconds });
    t.is(res.status, 400, String(overlapSeconds));
  }
  const rotated = await m.http.post(`${PATH}/${w.id}/secret/rotate`);
  t.is(rotated.status, 200);
  const next = rotated.body.webhook;
  t.regex(next.secret, /^wh_[A-Za-z0-9+/]{43}=$/);
  t.not(next.secret, w.secret);
  const overlapEnds = Date.parse(next.previousSecretExpiresAt) - Date.now();
  t.true(overlapEnds > 86_000_000 && overlapEnds <= 86_400_000, 'default overlap: 24 h');
  t.is((await m.http.get(PATH)).body.webhooks[0].secret, `wh_****${next.secret.slice(-4)}`);

  await emit(m.merchantId, 'charge.paid', { n: 1 });
  const [during] = await r.waitFor(1);
  t.regex(String(during.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
  t.true(verifies(w.secret, during), 'the old secret verifies');
  t.true(verifies(next.secret, during), 'the new secret verifies');

  const final = (await m.http.post(`${PATH}/${w.id}/secret/rotate`, { overlapSeconds: 0 })).body.webhook;
  t.is(final.previousSecretExpiresAt, null);
  await emit(m.merchantId, 'charge.paid', { n: 2 });
  const [, after] = await r.waitFor(2);
  t.regex(String(after.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
  t.true(verifies(final.secret, after));
  t.false(verifies(next.secret, after));
  t.false(verifies(w.secret, after));
  const other = await createMerchant(app);
  t.is((await other.http.post(`${PATH}/${w.id}/secret/rotate`)).status, 404);
});

test('auto-disable: the last 3 deliveries failed for good over 0.864 s with no success: INACTIVE, FAILING; PATCH ACTIVE clears it', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver(() => ({ status: 500 }));
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  const state = async () => (await m.http.get(PATH)).body.webhooks[0];
  // three failures at once: enough of them, but not spread over the window
  for (let i = 0; i < 3; i++) await emit(m.merchantId, 'charge.paid', { seq: i });
  await settled(m, w.id, 3);
  t.like(await state(), { status: 'ACTIVE', disabledReason: null, disabledAt: null });
  await new Promise((res) => setTimeout(res, 900));
  await emit(m.merchantId, 'charge.paid', { seq: 3 });
  const disabled = await waitUntil(async () => {
    const s = await state();
    return s.status === 'INACTIVE' && s;
  });
  t.is(disabled.disabledReason, 'FAILING');
  t.true(Date.parse(disabled.disabledAt) <= Date.now());
  await emit(m.merchantId, 'charge.paid', { seq: 4 });
  t.is((await deliveries(m, w.id)).total, 4, 'an INACTIVE webhook gets no new delivery');

  const back = (await m.http.patch(`${PATH}/${w.id}`, { status: 'ACTIVE' })).body.webhook;
  t.like(back, { status: 'ACTIVE', disabledReason: null, disabledAt: null });
  // the streak starts again: one more failure does not disable it
  await emit(m.merchantId, 'charge.paid', { seq: 5 });
  await settled(m, w.id, 5);
  t.like(await state(), { status: 'ACTIVE', disabledReason: null });
});

test('auto-disable: a success between failures starts the count again', async (t) => {
  const m = await createMerchant(app);
  const r = await receiver((req) => (JSON.parse(req.body).data.ok ? { status: 200 } : { status: 500 }));
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  const state = async () => (await m.http.get(PATH)).body.webhooks[0];
  await emit(m.merchantId, 'charge.paid', { seq: 0 });
  await emit(m.merchantId, 'charge.paid', { seq: 1 });
  await settled(m, w.id, 2);
  await new Promise((res) => setTimeout(res, 900));
  await emit(m.merchantId, 'charge.paid', { seq: 2, ok: true });
  await settled(m, w.id, 3);
  await emit(m.merchantId, 'charge.paid', { seq: 3 });
  await settled(m, w.id, 4);
  t.like(await state(), { status: 'ACTIVE', disabledReason: null }, 'two failures before the success, one after');
  const [{ failures }] = await app.orm.em
    .fork()
    .execute<{ failures: number }[]>('select cardinality(failures) as failures from webhooks where id = ?', [w.id]);
  t.is(failures, 1);
});
