import test from 'ava';
import { startTestApp, type TestApp } from './support/app.ts';
import { createApiKeyFor, createMerchant } from './support/factories.ts';
import { client } from './support/client.ts';
import { startReceiver } from './support/receiver.ts';
import { foldCounters } from '../src/platform/counters.ts';
import { EVENT_PAGE } from '../src/events/events.sql.ts';
import { newId } from '../src/platform/base.entity.ts';
import { pixKeyData, record, sql, withdrawalData } from './events.helpers.ts';

// GET /v1/events and GET /v1/events/:id: every event of the merchant, as webhooks deliver it, filtered and paged.
let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('an event is listed and read exactly as its webhook delivery carries it', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const m = await createMerchant(app);
  t.is((await m.http.post('/v1/webhooks/merchant', { url: receiver.url(), events: [] })).status, 201);
  const created = await m.http.post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: m.email });
  t.is(created.status, 201);

  const list = await m.http.get('/v1/events');
  t.is(list.status, 200);
  t.like(list.body, { page: 1, limit: 20, total: 1 });
  const [event] = list.body.events;
  t.is(event.event, 'pixkey.updated');
  t.deepEqual(event.data, created.body.pixKey);
  const [delivery] = await sql<{ payload: string }>(app, 'select payload from webhook_deliveries where event_id = ?', [
    event.id,
  ]);
  t.deepEqual(event, JSON.parse(delivery.payload), 'the same body as the webhook');
  const one = await m.http.get(`/v1/events/${event.id}`);
  t.is(one.status, 200);
  t.deepEqual(one.body, { event });
  // an API key reads them too
  const key = await createApiKeyFor(app, m.token);
  t.deepEqual((await client(app.baseUrl, key).get(`/v1/events/${event.id}`)).body, { event });
});

test('newest first, filtered by type and by resource, paged with the right total', async (t) => {
  const m = await createMerchant(app);
  const [keyA, keyB, w] = [newId(), newId(), newId()];
  await record(app, m.merchantId, [{ type: 'pixkey.updated', data: pixKeyData(keyA) }]);
  await record(app, m.merchantId, [{ type: 'pixkey.updated', data: pixKeyData(keyB) }]);
  await record(app, m.merchantId, [{ type: 'withdraw.completed', data: withdrawalData(w) }]);
  await record(app, m.merchantId, [{ type: 'pixkey.updated', data: pixKeyData(keyA, 'INACTIVE') }]);
  await record(app, m.merchantId, [{ type: 'withdraw.refunded', data: withdrawalData(w) }]);

  const all = (await m.http.get('/v1/events')).body;
  t.is(all.total, 5);
  t.deepEqual(
    all.events.map((e: any) => e.event),
    ['withdraw.refunded', 'pixkey.updated', 'withdraw.completed', 'pixkey.updated', 'pixkey.updated'],
  );
  const times = all.events.map((e: any) => Date.parse(e.createdAt));
  t.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
  );

  const keys = (await m.http.get('/v1/events?type=pixkey.updated')).body;
  t.is(keys.total, 3);
  t.true(keys.events.every((e: any) => e.event === 'pixkey.updated'));

  const ofA = (await m.http.get(`/v1/events?resourceId=${keyA}`)).body;
  t.is(ofA.total, 2);
  t.deepEqual(
    ofA.events.map((e: any) => [e.data.id, e.data.status]),
    [
      [keyA, 'INACTIVE'],
      [keyA, 'ACTIVE'],
    ],
  );
  const ofW = (await m.http.get(`/v1/events?resourceId=${w.toUpperCase()}&type=withdraw.refunded`)).body;
  t.is(ofW.total, 1);
  t.is(ofW.events[0].event, 'withdraw.refunded');

  const page2 = (await m.http.get('/v1/events?limit=2&page=2')).body;
  t.like(page2, { page: 2, limit: 2, total: 5 });
  t.deepEqual(
    page2.events.map((e: any) => e.id),
    all.events.slice(2, 4).map((e: any) => e.id),
  );
  t.deepEqual((await m.http.get('/v1/events?page=9')).body, { page: 9, limit: 20, total: 5, events: [] });
  t.deepEqual((await m.http.get(`/v1/events?resourceId=${keyA}&page=5`)).body, {
    page: 5,
    limit: 20,
    total: 2,
    events: [],
  });
  t.is((await m.http.get(`/v1/events?resourceId=${newId()}`)).body.total, 0);

  // the counter's +n rows folded into one per (merchant, type): the same totals
  await foldCounters(app.orm.em.fork(), [EVENT_PAGE.counter]);
  t.is((await m.http.get('/v1/events')).body.total, 5);
  t.is((await m.http.get('/v1/events?type=withdraw.completed')).body.total, 1);
});

test("a merchant never sees another merchant's events", async (t) => {
  const a = await createMerchant(app);
  const b = await createMerchant(app);
  const resource = newId();
  const [event] = await record(app, a.merchantId, [{ type: 'pixkey.updated', data: pixKeyData(resource) }]);
  t.is((await a.http.get(`/v1/events/${event.id}`)).status, 200);
  const other = await b.http.get(`/v1/events/${event.id}`);
  t.is(other.status, 404);
  t.deepEqual(other.body, { code: 'not_found', message: 'Evento não encontrado' });
  t.is((await b.http.get('/v1/events')).body.total, 0);
  t.is((await b.http.get(`/v1/events?resourceId=${resource}`)).body.total, 0);
  t.is((await b.http.get('/v1/events?type=pixkey.updated')).body.total, 0);
  t.is((await b.http.get('/v1/events/nao-e-um-id')).status, 404);
  t.is((await client(app.baseUrl).get('/v1/events')).status, 401);
});

test('bad filters are 400 and name the parameter', async (t) => {
  const m = await createMerchant(app);
  const cases: [string, string, string][] = [
    ['?type=charge.created', 'type', 'type deve ser um de: charge.paid'],
    ['?type=charge.paid&type=charge.refunded', 'type', 'type deve aparecer uma única vez'],
    ['?resourceId=123', 'resourceId', 'resourceId deve ser o id (UUID)'],
    ['?resourceId=', 'resourceId', 'resourceId deve ser o id (UUID)'],
    ['?page=0', 'page', 'page deve ser um inteiro >= 1'],
    ['?limit=101', 'limit', 'limit deve ser um inteiro entre 1 e 100'],
  ];
  for (const [query, field, message] of cases) {
    const res = await m.http.get(`/v1/events${query}`);
    t.is(res.status, 400, query);
    t.is(res.body.errors[0].field, field, query);
    t.true(res.body.errors[0].message.startsWith(message), `${query}: ${res.body.errors[0].message}`);
  }
});
