import test from 'ava';
import { request } from 'node:http';
import { startTestApp, type TestApp } from './support/app.ts';
import { createApiKeyFor, createMerchant } from './support/factories.ts';
import { openSse, type SseClient } from './support/sse.ts';
import { waitUntil } from './support/receiver.ts';
import { newId } from '../src/platform/base.entity.ts';
import { openTransaction, pixKeyData, record, recordPixKeyEvent, sql } from './events.helpers.ts';

// GET /v1/events/stream over real HTTP on 127.0.0.1, with real concurrent transactions.
let app: TestApp;
const clients = new Set<SseClient>();
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  for (const c of clients) c.close();
  await app?.close();
});

async function stream(a: TestApp, token: string, path = '/v1/events/stream', headers: Record<string, string> = {}) {
  const c = await openSse(a.baseUrl, path, token, headers);
  clients.add(c);
  return c;
}
const ids = (c: SseClient) => c.events.map((e) => e.id);

test('each event arrives as id, event name and the body the API lists', async (t) => {
  const m = await createMerchant(app);
  const s = await stream(app, m.token);
  t.is(s.status, 200);
  t.regex(s.headers.get('content-type') ?? '', /^text\/event-stream/);
  t.is(s.headers.get('cache-control'), 'no-cache, no-transform');
  const created = await m.http.post('/v1/merchants/me/pix-keys', { type: 'EMAIL', key: m.email });
  const [e] = await s.waitForEvents(1);
  const listed = (await m.http.get('/v1/events')).body.events[0];
  t.is(e.id, listed.id);
  t.is(e.event, 'pixkey.updated');
  t.deepEqual(JSON.parse(e.data), listed);
  t.deepEqual(JSON.parse(e.data).data, created.body.pixKey);
  t.is(s.lastEventId, listed.id);
});

test('commit order, not id order: an event whose transaction commits later comes later, and a resume finds it', async (t) => {
  const m = await createMerchant(app);
  const s = await stream(app, m.token);
  const early = await openTransaction(app, m.merchantId); // its id is taken first; it commits last
  const late = await recordPixKeyEvent(app, m.merchantId);
  t.true(early.event.id < late.id, 'ids are time-ordered: the open transaction holds the older id');
  await s.waitForEvents(1);
  t.deepEqual(ids(s), [late.id]);
  await early.commit();
  await s.waitForEvents(2);
  t.deepEqual(ids(s), [late.id, early.event.id]);

  // resuming after the later-id event still delivers the earlier-id one that committed after it
  const resumed = await stream(app, m.token, '/v1/events/stream', { 'last-event-id': late.id });
  const [first] = await resumed.waitForEvents(1);
  t.is(first.id, early.event.id);
  const fromQuery = await stream(app, m.token, `/v1/events/stream?after=${late.id}`);
  t.is((await fromQuery.waitForEvents(1))[0].id, early.event.id);
  // past the last one: only what comes next
  const atEnd = await stream(app, m.token, `/v1/events/stream?after=${early.event.id}`);
  const next = await recordPixKeyEvent(app, m.merchantId);
  t.deepEqual(
    (await atEnd.waitForEvents(1)).map((e) => e.id),
    [next.id],
  );
  for (const c of [s, resumed, fromQuery, atEnd]) c.close();
});

test('concurrent writers, a reader that disconnects and resumes: every event exactly once, in the stream order', async (t) => {
  const m = await createMerchant(app);
  const first = await stream(app, m.token);
  const writers = Array.from({ length: 12 }, async (_, w) => {
    for (let i = 0; i < 8; i++) {
      const tx = await openTransaction(app, m.merchantId);
      await new Promise((r) => setTimeout(r, Math.random() * 40 + (w % 3) * 10)); // commits interleave out of id order
      await tx.commit();
    }
  });
  const total = 12 * 8;
  await first.waitForEvents(20, 30_000);
  first.close();
  await first.ended;
  const second = await stream(app, m.token, '/v1/events/stream', { 'last-event-id': first.lastEventId });
  await Promise.all(writers);
  await waitUntil(async () => first.events.length + second.events.length >= total, 30_000, 'every event streamed');
  const seen = [...ids(first), ...ids(second)];
  t.is(new Set(seen).size, seen.length, 'none twice');
  const positions = await sql<{ event_id: string }>(
    app,
    'select event_id from event_stream where merchant_id = ? order by seq',
    [m.merchantId],
  );
  t.deepEqual(
    seen,
    positions.map((p) => p.event_id),
    'every event, in position order',
  );
  const sorted = [...seen].sort();
  t.log(`${seen.filter((id, i) => id !== sorted[i]).length} of ${total} events streamed out of id order`);
});

test('no cursor: the stream starts after the latest event and announces its id, so a reconnection misses nothing', async (t) => {
  const m = await createMerchant(app);
  const old = await recordPixKeyEvent(app, m.merchantId);
  await waitUntil(
    async () => (await sql(app, 'select 1 from event_stream where event_id = ?', [old.id])).length === 1,
    5000,
    'positioned',
  );
  const s = await stream(app, m.token);
  await waitUntil(async () => s.lastEventId === old.id, 5000, 'the latest id announced');
  t.deepEqual(s.events, [], 'nothing dispatched for it');
  s.close();
  const missed = await recordPixKeyEvent(app, m.merchantId);
  const again = await stream(app, m.token, '/v1/events/stream', { 'last-event-id': s.lastEventId });
  t.deepEqual(
    (await again.waitForEvents(1)).map((e) => e.id),
    [missed.id],
  );
});

test('a resume from an event read in the listing before the stream positioned it', async (t) => {
  const m = await createMerchant(app);
  const [a, b] = await record(app, m.merchantId, [
    { type: 'pixkey.updated', data: pixKeyData() },
    { type: 'pixkey.updated', data: pixKeyData() },
  ]);
  const s = await stream(app, m.token, `/v1/events/stream?after=${a.id}`);
  t.deepEqual(
    (await s.waitForEvents(1)).map((e) => e.id),
    [b.id],
  );
});

test('the header wins over ?after; bad, unknown and foreign cursors are refused before the stream opens', async (t) => {
  const m = await createMerchant(app);
  const other = await createMerchant(app);
  const [a, b] = [await recordPixKeyEvent(app, m.merchantId), await recordPixKeyEvent(app, m.merchantId)];
  const both = await stream(app, m.token, `/v1/events/stream?after=${a.id}`, { 'last-event-id': b.id });
  const c = await recordPixKeyEvent(app, m.merchantId);
  t.deepEqual(
    (await both.waitForEvents(1)).map((e) => e.id),
    [c.id],
  );

  const foreign = await stream(app, other.token, `/v1/events/stream?after=${a.id}`);
  t.is(foreign.status, 404);
  t.deepEqual(foreign.body, { code: 'not_found', message: 'Evento não encontrado' });
  t.is((await stream(app, m.token, `/v1/events/stream?after=${newId()}`)).status, 404);
  const bad = await stream(app, m.token, '/v1/events/stream', { 'last-event-id': 'abc' });
  t.is(bad.status, 400);
  t.is(bad.body.errors[0].message, 'Last-Event-ID deve ser o id (UUID) de um evento');
  t.is((await stream(app, m.token, '/v1/events/stream?after=1')).status, 400);
  t.is((await stream(app, m.token, `/v1/events/stream?after=${a.id}&after=${b.id}`)).status, 400);
  t.is((await stream(app, 'nope')).status, 401);
  // an API key streams too
  const key = await createApiKeyFor(app, m.token);
  const withKey = await stream(app, key, `/v1/events/stream?after=${b.id}`);
  t.is(withKey.status, 200);
  t.is((await withKey.waitForEvents(1))[0].id, c.id);
  for (const x of [both, withKey]) x.close();
});

test('a comment line keeps an idle stream alive at least every 15 s', async (t) => {
  const m = await createMerchant(app);
  const s = await stream(app, m.token);
  const opened = Date.now();
  await waitUntil(async () => s.comments.some((c) => c.text === 'heartbeat'), 16_000, 'a heartbeat');
  const beat = s.comments.find((c) => c.text === 'heartbeat')!;
  t.true(beat.at - opened <= 15_000, `${beat.at - opened} ms`);
  s.close();
});

test('at most 5 open streams per merchant, counted across API processes; a closed one frees its place', async (t) => {
  const second = await startTestApp({}, { databaseUrl: app.databaseUrl });
  t.teardown(() => second.close());
  const m = await createMerchant(app);
  const open = [
    await stream(app, m.token),
    await stream(app, m.token),
    await stream(app, m.token),
    await stream(second, m.token),
    await stream(second, m.token),
  ];
  t.true(open.every((s) => s.status === 200));
  for (const a of [app, second]) {
    const refused = await stream(a, m.token);
    t.is(refused.status, 429);
    t.deepEqual(refused.body, {
      code: 'too_many_streams',
      message: 'Limite de 5 conexões abertas ao stream de eventos atingido',
    });
  }
  const other = await createMerchant(app);
  t.is((await stream(second, other.token)).status, 200, 'the limit is per merchant');
  open[3].close();
  await waitUntil(async () => (await stream(app, m.token)).status === 200, 5000, 'a place freed');
});

test('a client that stops reading holds the server to a bounded buffer, then gets everything in order', async (t) => {
  const m = await createMerchant(app);
  const before = await recordPixKeyEvent(app, m.merchantId); // the stream starts after it
  const N = 5000;
  const big = 'x'.repeat(8000); // 40 MB in all: far more than the kernel's socket buffers hold
  await sql(
    app,
    `insert into events (id, created_at, updated_at, merchant_id, type, data)
     select gen_random_uuid(), now(), now(), ?, 'pixkey.updated', jsonb_build_object('n', i, 'pad', ?::text)
       from generate_series(1, ?) i`,
    [m.merchantId, big, N],
  );
  const sentBefore = app.streams.stats().sent;
  const { port } = new URL(app.baseUrl);
  const paused = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/v1/events/stream?after=${before.id}`,
        headers: { authorization: `Bearer ${m.token}` },
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
  t.is(paused.statusCode, 200);
  paused.pause(); // read nothing for a while
  const positioned = async () =>
    (
      await sql<{ n: number }>(app, 'select count(*)::int as n from event_stream where merchant_id = ?', [m.merchantId])
    )[0].n;
  let last = -1;
  await waitUntil(
    async () => {
      await new Promise((r) => setTimeout(r, 1000));
      const now = app.streams.stats().sent;
      const steady = now === last && (await positioned()) >= N / 2;
      last = now;
      return steady;
    },
    40_000,
    'the server stopped writing, with thousands of events to send',
  );
  const written = app.streams.stats().sent - sentBefore;
  t.log(`written while the client read nothing: ${written} of ${N} events`);
  t.true(written < N / 2, `${written} events written to a client that reads nothing`);

  // the client reads again: everything arrives, once, in order
  let tail = '';
  const ns: number[] = [];
  paused.on('data', (chunk: Buffer) => {
    const text = tail + chunk.toString('latin1');
    const cut = text.lastIndexOf('\n');
    for (const x of text.slice(0, cut + 1).matchAll(/^data: \{.*?"n":(\d+)/gm)) ns.push(Number(x[1]));
    tail = text.slice(cut + 1);
  });
  let ended = '';
  paused.on('close', () => (ended = `closed after ${ns.length} events`));
  paused.resume();
  const resumed = Date.now();
  await waitUntil(async () => ns.length >= N || ended, 120_000, 'every event after resuming').catch(async (err) => {
    t.log({ read: ns.length, positioned: await positioned(), stats: app.streams.stats() });
    throw err;
  });
  t.log(`read in ${Date.now() - resumed} ms`);
  t.is(ended, '');
  t.is(ns.length, N);
  t.is(new Set(ns).size, N, 'each once');
  paused.destroy();
});

test('behind a transaction pooler with no direct URL (no LISTEN) the stream polls, and still follows commit order', async (t) => {
  const pooled = await startTestApp({ DATABASE_POOL_MODE: 'transaction' }, { databaseUrl: app.databaseUrl });
  t.teardown(() => pooled.close());
  const direct = await startTestApp(
    { DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: app.databaseUrl },
    { databaseUrl: app.databaseUrl },
  );
  t.teardown(() => direct.close());
  await waitUntil(async () => direct.streams.stats().listening, 5000, 'LISTEN on the direct URL');
  t.false(pooled.streams.stats().listening);

  const m = await createMerchant(app);
  const s = await stream(pooled, m.token);
  const early = await openTransaction(app, m.merchantId);
  const late = await recordPixKeyEvent(app, m.merchantId);
  const started = Date.now();
  await s.waitForEvents(1, 5000);
  t.log(`first event after ${Date.now() - started} ms by polling`);
  await early.commit();
  await s.waitForEvents(2, 5000);
  t.deepEqual(ids(s), [late.id, early.event.id]);
});

test('/metrics: open streams and events written by this process, and the deployment-wide positioning backlog', async (t) => {
  const m = await createMerchant(app);
  const s = await stream(app, m.token);
  await recordPixKeyEvent(app, m.merchantId);
  await s.waitForEvents(1);
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
  t.true(value('pix_event_streams_open') >= 1);
  t.true(value('pix_event_stream_events_total') >= 1);
  t.true(value('pix_event_stream_unpositioned') >= 0);
  t.true(value('pix_event_stream_unpositioned_oldest_seconds') >= 0);
  t.regex(text, /^pix_scrape_up\{collector="event_stream"\} 1$/m);
  s.close();
});
