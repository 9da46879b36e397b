import test from 'ava';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { createApiKeyFor, createMerchant } from './support/factories.ts';
import { EVENT_CATALOG, EVENT_TYPES } from '../src/webhooks/catalog.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';
import { webhookUrlProblem, URL_MESSAGES } from '../src/webhooks/url-policy.ts';
import { Migration20261126100000_webhook_urls } from '../db/migrations/Migration20261126100000_webhook_urls.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const PATH = '/v1/webhooks/merchant';
const HOOK = 'http://127.0.0.1:9/hook'; // never called here: no daemon runs in this file
const SPEC_CREATED = ['createdAt', 'events', 'id', 'name', 'secret', 'status', 'url'];
const SETTINGS = ['disabledAt', 'disabledReason', 'headers', 'rateLimit'];

test('POST creates an ACTIVE webhook and returns the full secret once', async (t) => {
  const m = await createMerchant(app);
  const res = await m.http.post(PATH, { url: HOOK, name: 'Pedidos', events: ['charge.paid', 'withdraw.failed'] });
  t.is(res.status, 201);
  t.deepEqual(Object.keys(res.body), ['webhook']);
  const w = res.body.webhook;
  // the spec's fields, plus the contract's self-service settings (webhooks.selfservice.test.ts)
  t.deepEqual(Object.keys(w).sort(), [...SPEC_CREATED, ...SETTINGS].sort());
  t.like(w, { headers: null, rateLimit: null, disabledReason: null, disabledAt: null });
  t.like(w, { name: 'Pedidos', url: HOOK, events: ['charge.paid', 'withdraw.failed'], status: 'ACTIVE' });
  t.regex(w.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.regex(w.secret, /^wh_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(w.secret.slice(3), 'base64').length, 32);
  t.is(new Date(w.createdAt).toISOString(), w.createdAt);

  const minimal = await m.http.post(PATH, { url: HOOK });
  t.like(minimal.body.webhook, { name: null, events: [], status: 'ACTIVE' });
  t.not(minimal.body.webhook.secret, w.secret);
});

test('an API key can manage webhooks; no credentials is 401', async (t) => {
  const m = await createMerchant(app);
  const key = await createApiKeyFor(app, m.token);
  const withKey = client(app.baseUrl, key);
  t.is((await withKey.post(PATH, { url: HOOK })).status, 201);
  t.is((await withKey.get(PATH)).body.webhooks.length, 1);
  t.deepEqual((await client(app.baseUrl).get(PATH)).body, {
    code: 'unauthenticated',
    message: 'Cabeçalho de autorização ausente',
  });
});

test('POST validates url, name and events with field errors; unknown events list the allowed ones', async (t) => {
  const m = await createMerchant(app);
  const missing = await m.http.post(PATH, {});
  t.is(missing.status, 400);
  t.deepEqual(missing.body.errors, [{ field: 'url', message: URL_MESSAGES.required }]);
  for (const url of [
    'not a url',
    'ftp://example.com/x',
    'mailto:a@b.com',
    42,
    `https://example.com/${'x'.repeat(2048)}`,
  ]) {
    const res = await m.http.post(PATH, { url });
    t.is(res.status, 400, String(url));
    t.deepEqual(res.body.errors, [{ field: 'url', message: URL_MESSAGES.invalid }]);
  }
  const bad = await m.http.post(PATH, { url: HOOK, name: 'x'.repeat(101), events: ['charge.paid', 'charge.created'] });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['events', 'name']);
  const events = bad.body.errors.find((e: { field: string }) => e.field === 'events').message as string;
  t.true(events.includes('"charge.created"'));
  for (const name of EVENT_TYPES) t.true(events.includes(name), name);
  t.is((await m.http.post(PATH, { url: HOOK, events: 'charge.paid' })).status, 400);
  t.is((await m.http.post(PATH, { url: HOOK, name: 'x'.repeat(100) })).status, 201);
  t.is((await m.http.get(PATH)).body.webhooks.length, 1, 'nothing was created by the rejected requests');
});

test("GET lists newest first with the secret masked, updatedAt and empty logs; never another merchant's", async (t) => {
  const m = await createMerchant(app);
  const other = await createMerchant(app);
  const first = (await m.http.post(PATH, { url: HOOK, name: 'a' })).body.webhook;
  const second = (await m.http.post(PATH, { url: `${HOOK}2`, name: 'b', events: ['pixkey.updated'] })).body.webhook;
  await other.http.post(PATH, { url: HOOK });
  const res = await m.http.get(PATH);
  t.is(res.status, 200);
  t.deepEqual(
    res.body.webhooks.map((w: { id: string }) => w.id),
    [second.id, first.id],
  );
  const listed = res.body.webhooks[0];
  t.deepEqual(
    Object.keys(listed).sort(),
    ['createdAt', 'events', 'id', 'logs', 'name', 'secret', 'status', 'updatedAt', 'url', ...SETTINGS].sort(),
  );
  t.is(listed.secret, `wh_****${second.secret.slice(-4)}`);
  t.like(listed, {
    name: 'b',
    url: `${HOOK}2`,
    events: ['pixkey.updated'],
    status: 'ACTIVE',
    createdAt: second.createdAt,
    logs: [],
  });
  t.truthy(Date.parse(listed.updatedAt));
});

test('PATCH changes only the supplied fields; name null removes it, events [] means all; no secret in the answer', async (t) => {
  const m = await createMerchant(app);
  const w = (await m.http.post(PATH, { url: HOOK, name: 'antes', events: ['charge.paid'] })).body.webhook;
  await new Promise((r) => setTimeout(r, 5));
  const paused = await m.http.patch(`${PATH}/${w.id}`, { status: 'INACTIVE' });
  t.is(paused.status, 200);
  t.deepEqual(
    Object.keys(paused.body.webhook).sort(),
    ['createdAt', 'events', 'id', 'name', 'status', 'updatedAt', 'url', ...SETTINGS].sort(),
  );
  t.like(paused.body.webhook, {
    id: w.id,
    name: 'antes',
    url: HOOK,
    events: ['charge.paid'],
    status: 'INACTIVE',
    createdAt: w.createdAt,
  });
  t.true(paused.body.webhook.updatedAt > w.createdAt);

  const changed = await m.http.patch(`${PATH}/${w.id}`, {
    name: null,
    events: [],
    url: `${HOOK}/v2`,
    status: 'ACTIVE',
  });
  t.like(changed.body.webhook, { name: null, events: [], url: `${HOOK}/v2`, status: 'ACTIVE' });
  const renamed = await m.http.patch(`${PATH}/${w.id}`, {
    name: 'depois',
    events: ['charge.refunded', 'charge.refunded'],
  });
  t.like(renamed.body.webhook, { name: 'depois', events: ['charge.refunded'], url: `${HOOK}/v2` });
  const listed = (await m.http.get(PATH)).body.webhooks[0];
  t.like(listed, {
    name: 'depois',
    events: ['charge.refunded'],
    url: `${HOOK}/v2`,
    status: 'ACTIVE',
    secret: `wh_****${w.secret.slice(-4)}`,
  });
});

test('PATCH validates like POST: unknown events, bad status, bad url, long name', async (t) => {
  const m = await createMerchant(app);
  const w = (await m.http.post(PATH, { url: HOOK })).body.webhook;
  const cases: [object, string][] = [
    [{ events: ['nope'] }, 'events'],
    [{ status: 'PAUSED' }, 'status'],
    [{ url: 'ftp://x' }, 'url'],
    [{ url: null }, 'url'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ events: null }, 'events'],
  ];
  for (const [body, field] of cases) {
    const res = await m.http.patch(`${PATH}/${w.id}`, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.errors[0].field, field);
  }
  t.like((await m.http.get(PATH)).body.webhooks[0], { url: HOOK, events: [], status: 'ACTIVE', name: null });
});

test('POST and PATCH store the URL in its WHATWG form: the one shown, and the one delivered to', async (t) => {
  const m = await createMerchant(app);
  const created = await m.http.post(PATH, { url: 'HTTP://LocalHost:80/a/../Hook?x=1#frag' });
  t.is(created.status, 201);
  t.is(created.body.webhook.url, 'http://localhost/Hook?x=1');
  const id = created.body.webhook.id;
  const patched = await m.http.patch(`${PATH}/${id}`, { url: 'http://BÜCHER.localhost:8080/x' });
  t.is(patched.body.webhook.url, 'http://xn--bcher-kva.localhost:8080/x');
  t.is((await m.http.get(PATH)).body.webhooks[0].url, 'http://xn--bcher-kva.localhost:8080/x');
  const [row] = await app.orm.em.fork().execute('select url from webhooks where id = ?', [id]);
  t.is(row.url, 'http://xn--bcher-kva.localhost:8080/x');
});

test('a URL with a user name or password is refused on POST and PATCH, and nothing changes', async (t) => {
  const m = await createMerchant(app);
  const w = (await m.http.post(PATH, { url: HOOK })).body.webhook;
  for (const url of [
    'http://user:senha@127.0.0.1:9/hook',
    'http://user@127.0.0.1:9/hook',
    'http://:senha@127.0.0.1:9/',
  ]) {
    const created = await m.http.post(PATH, { url });
    t.is(created.status, 400, url);
    t.deepEqual(created.body.errors, [{ field: 'url', message: URL_MESSAGES.credentials }]);
    const patched = await m.http.patch(`${PATH}/${w.id}`, { url });
    t.is(patched.status, 400, url);
    t.deepEqual(patched.body.errors, [{ field: 'url', message: URL_MESSAGES.credentials }]);
  }
  const listed = (await m.http.get(PATH)).body.webhooks;
  t.is(listed.length, 1);
  t.is(listed[0].url, HOOK);
});

test('the migration brings URLs stored as given to their WHATWG form', async (t) => {
  const m = await createMerchant(app);
  const w = (await m.http.post(PATH, { url: HOOK })).body.webhook;
  const em = app.orm.em.fork();
  await em.execute('update webhooks set url = ? where id = ?', ['HTTPS://Example.COM:443/x#y', w.id]);
  const migration = new Migration20261126100000_webhook_urls(em.getDriver(), app.orm.config);
  await migration.up();
  t.is((await em.execute('select url from webhooks where id = ?', [w.id]))[0].url, 'https://example.com/x');
});

test("unknown, malformed and other merchants' ids are 404 on PATCH and DELETE", async (t) => {
  const m = await createMerchant(app);
  const other = await createMerchant(app);
  const theirs = (await other.http.post(PATH, { url: HOOK })).body.webhook;
  for (const id of [theirs.id, '0196b0a4-7c3a-7b3e-8b7a-1c2d3e4f5a6b', 'not-a-uuid', '1']) {
    t.deepEqual(
      [(await m.http.patch(`${PATH}/${id}`, { name: 'x' })).status, (await m.http.del(`${PATH}/${id}`)).body],
      [404, { code: 'not_found', message: 'Webhook não encontrado' }],
    );
  }
  t.like((await other.http.get(PATH)).body.webhooks[0], { id: theirs.id, name: null });
});

test('DELETE removes the webhook from the listing; a second DELETE or a PATCH is 404', async (t) => {
  const m = await createMerchant(app);
  const keep = (await m.http.post(PATH, { url: HOOK })).body.webhook;
  const gone = (await m.http.post(PATH, { url: HOOK })).body.webhook;
  const res = await m.http.del(`${PATH}/${gone.id}`);
  t.deepEqual([res.status, res.body], [200, { message: 'Webhook removido' }]);
  t.deepEqual(
    (await m.http.get(PATH)).body.webhooks.map((w: { id: string }) => w.id),
    [keep.id],
  );
  t.is((await m.http.del(`${PATH}/${gone.id}`)).status, 404);
  t.is((await m.http.patch(`${PATH}/${gone.id}`, { status: 'ACTIVE' })).status, 404);
});

test("GET /events lists the spec's nine events and Pix Automático's ten, with Portuguese descriptions and five categories", async (t) => {
  const m = await createMerchant(app);
  const res = await m.http.get(`${PATH}/events`);
  t.is(res.status, 200);
  t.deepEqual(
    res.body.events.map(({ event, description, category }: Record<string, string>) => ({
      event,
      description,
      category,
    })),
    EVENT_CATALOG.map(({ event, description, category }) => ({ event, description, category })),
  );
  for (const e of res.body.events) {
    t.deepEqual(Object.keys(e), ['event', 'description', 'category', 'schema', 'example'], e.event);
    t.is(e.example.event, e.event);
  }
  t.is(res.body.events.length, 19);
  t.deepEqual(
    [...new Set(res.body.events.map((e: { category: string }) => e.category))],
    ['Cobranças', 'Saques', 'Chave PIX', 'Infrações', 'Pix Automático'],
  );
  t.is((await m.http.patch(`${PATH}/events`, { name: 'x' })).status, 404, 'the literal path is not an id');
});

test('a merchant may keep at most 20 webhooks (422 past that); deleting one frees a slot', async (t) => {
  const m = await createMerchant(app);
  const created = await Promise.all(Array.from({ length: 21 }, () => m.http.post(PATH, { url: HOOK })));
  t.deepEqual(created.map((r) => r.status).sort(), [...Array(20).fill(201), 422]);
  t.deepEqual(created.find((r) => r.status === 422)!.body, {
    code: 'webhook_limit_reached',
    message: 'Limite de 20 webhooks atingido',
  });
  await m.http.del(`${PATH}/${created.find((r) => r.status === 201)!.body.webhook.id}`);
  t.is((await m.http.post(PATH, { url: HOOK })).status, 201);
});

// ---- x-idempotency-key (contract "Developer experience": the SDK retries a creation with the same key) ----

const keyed = (key: string) => ({ 'x-idempotency-key': key });
const listed = async (m: Awaited<ReturnType<typeof createMerchant>>) =>
  ((await m.http.get(PATH)).body.webhooks as { id: string }[]).map((w) => w.id);

test('a creation repeated with its x-idempotency-key replays it: same id, current secret, one webhook', async (t) => {
  const m = await createMerchant(app);
  const body = { url: HOOK, name: 'Pedidos', events: ['charge.paid'] };
  const first = await m.http.post(PATH, body, keyed('wh-1'));
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  const again = await m.http.post(PATH, { ...body, events: ['charge.paid', 'charge.paid'] }, keyed('wh-1'));
  t.is(again.status, 200, 'the same body once normalised (duplicate events collapse)');
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(again.body, first.body);
  t.deepEqual(await listed(m), [first.body.webhook.id]);

  // the webhook as it is now: a rotated secret and a PATCH show in the replay
  const rotated = await m.http.post(`${PATH}/${first.body.webhook.id}/secret/rotate`, { overlapSeconds: 0 });
  await m.http.patch(`${PATH}/${first.body.webhook.id}`, { status: 'INACTIVE' });
  const later = await m.http.post(PATH, body, keyed('wh-1'));
  t.is(later.status, 200);
  t.like(later.body.webhook, { id: first.body.webhook.id, secret: rotated.body.webhook.secret, status: 'INACTIVE' });
  t.not(later.body.webhook.secret, first.body.webhook.secret);

  // another key, or another merchant with this key, creates
  const other = await m.http.post(PATH, body, keyed('wh-2'));
  t.is(other.status, 201);
  t.not(other.body.webhook.id, first.body.webhook.id);
  const stranger = await createMerchant(app);
  const theirs = await stranger.http.post(PATH, body, keyed('wh-1'));
  t.is(theirs.status, 201);
  t.not(theirs.body.webhook.id, first.body.webhook.id);
  t.is((await listed(m)).length, 2);
});

test('the same x-idempotency-key with another body is 409 and creates nothing; a bad key is 400', async (t) => {
  const m = await createMerchant(app);
  t.is((await m.http.post(PATH, { url: HOOK }, keyed('k'))).status, 201);
  for (const body of [{ url: `${HOOK}2` }, { url: HOOK, name: 'Outro' }, { url: HOOK, rateLimit: 5 }]) {
    const res = await m.http.post(PATH, body, keyed('k'));
    t.is(res.status, 409, JSON.stringify(body));
    t.deepEqual(res.body, {
      code: 'idempotency_conflict',
      message: 'Chave de idempotência já usada com outro corpo de requisição',
    });
  }
  const long = await m.http.post(PATH, { url: HOOK }, keyed('x'.repeat(65)));
  t.is(long.status, 400);
  t.is(long.body.errors[0].field, 'x-idempotency-key');
  t.is((await listed(m)).length, 1);
});

test('20 concurrent creations with one x-idempotency-key make one webhook; the others replay it', async (t) => {
  const m = await createMerchant(app);
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => m.http.post(PATH, { url: HOOK, events: ['charge.paid'] }, keyed('together'))),
  );
  t.deepEqual(answers.map((r) => r.status).sort(), [...Array(19).fill(200), 201]);
  t.is(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 19);
  const ids = new Set(answers.map((r) => r.body.webhook.id));
  const secrets = new Set(answers.map((r) => r.body.webhook.secret));
  t.is(ids.size, 1);
  t.is(secrets.size, 1);
  t.deepEqual(await listed(m), [...ids]);
});

test('replays do not count against the limit of 20 webhooks', async (t) => {
  const m = await createMerchant(app);
  for (let i = 0; i < 20; i++) t.is((await m.http.post(PATH, { url: HOOK }, keyed(`n-${i}`))).status, 201);
  // at the limit: every key already used still replays, a new one is refused
  const replays = await Promise.all(
    Array.from({ length: 20 }, (_, i) => m.http.post(PATH, { url: HOOK }, keyed(`n-${i}`))),
  );
  t.deepEqual(
    replays.map((r) => r.status),
    Array(20).fill(200),
  );
  t.is((await m.http.post(PATH, { url: HOOK }, keyed('n-20'))).body.code, 'webhook_limit_reached');
  t.is((await listed(m)).length, 20);
});

test('the key of a webhook since deleted is spent: 409, no second webhook, no replay of the deleted one', async (t) => {
  const m = await createMerchant(app);
  const created = await m.http.post(PATH, { url: HOOK }, keyed('gone'));
  t.is((await m.http.del(`${PATH}/${created.body.webhook.id}`)).status, 200);
  for (const body of [{ url: HOOK }, { url: `${HOOK}2` }]) {
    const res = await m.http.post(PATH, body, keyed('gone'));
    t.is(res.status, 409);
    t.is(res.body.code, 'idempotency_conflict');
  }
  t.deepEqual((await m.http.post(PATH, { url: HOOK }, keyed('gone'))).body, {
    code: 'idempotency_conflict',
    message: 'Chave de idempotência já usada por um webhook excluído',
  });
  t.deepEqual(await listed(m), []);
});

test("the listing carries the last 20 delivery logs of each webhook, newest first, with the spec's fields", async (t) => {
  const m = await createMerchant(app);
  const a = (await m.http.post(PATH, { url: HOOK })).body.webhook;
  const b = (await m.http.post(PATH, { url: `${HOOK}/b`, events: ['withdraw.completed'] })).body.webhook;
  const eventIds: string[] = [];
  for (let i = 0; i < 22; i++) {
    const em = app.orm.em.fork();
    const event = await em.transactional((tx) =>
      recordEvent(tx, app.boss, m.merchantId, i === 21 ? 'withdraw.completed' : 'charge.paid', { seq: i }),
    );
    eventIds.push(event.id); // its deliveries are written with it (no daemon runs in this file)
  }
  await app.orm.em
    .fork()
    .execute(
      `update webhook_deliveries set status_code = 500, response = 'erro', attempts = 2 where event_id = ? and webhook_id = ?`,
      [eventIds[21], b.id],
    );
  const listed = (await m.http.get(PATH)).body.webhooks;
  const logsA = listed.find((w: { id: string }) => w.id === a.id).logs;
  const logsB = listed.find((w: { id: string }) => w.id === b.id).logs;
  t.is(logsA.length, 20);
  t.deepEqual(
    logsA.map((l: { payload: string }) => JSON.parse(l.payload).data.seq),
    Array.from({ length: 20 }, (_, i) => 21 - i),
  );
  t.is(logsB.length, 1);
  const log = logsB[0];
  t.deepEqual(Object.keys(log).sort(), [
    'attempts',
    'createdAt',
    'deliveryId',
    'event',
    'id',
    'nextAttemptAt',
    'payload',
    'response',
    'status',
    'statusCode',
    'success',
    'url',
  ]);
  t.like(log, {
    event: 'withdraw.completed',
    url: `${HOOK}/b`,
    statusCode: 500,
    response: 'erro',
    attempts: 2,
    success: false,
    status: 'PENDING',
  });
  t.regex(log.deliveryId, /^msg_[0-9a-f]{32}$/);
  const body = JSON.parse(log.payload);
  t.deepEqual(Object.keys(body), ['id', 'event', 'createdAt', 'data']);
  t.deepEqual(body, { id: eventIds[21], event: 'withdraw.completed', createdAt: body.createdAt, data: { seq: 21 } });
  t.not(logsA[0].deliveryId, log.deliveryId, 'one delivery (and webhook-id) per webhook');
  t.is(logsA[0].statusCode, null, 'not attempted yet');
});

test('production URL policy: HTTPS only, and never a private, loopback or link-local address', async (t) => {
  t.is(
    await webhookUrlProblem('http://127.0.0.1:3000/x', false),
    null,
    'plain http and loopback are fine outside production',
  );
  t.is(await webhookUrlProblem('http://localhost/x', false), null);
  t.is(await webhookUrlProblem('http://93.184.216.34/x', true), URL_MESSAGES.httpsOnly);
  for (const url of [
    'https://127.0.0.1/x',
    'https://localhost/x',
    'https://10.1.2.3/',
    'https://192.168.0.10/',
    'https://172.16.0.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
    'https://100.64.0.1/',
    'https://[::ffff:127.0.0.1]/',
    'https://2130706433/',
  ]) {
    t.is(await webhookUrlProblem(url, true), URL_MESSAGES.privateAddress, url);
  }
  t.is(await webhookUrlProblem('https://93.184.216.34/hook', true), null, 'a public address is accepted');
  t.is(await webhookUrlProblem('https://no-such-host.invalid/hook', true), URL_MESSAGES.unresolvable);
});
