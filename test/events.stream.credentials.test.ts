import test, { type ExecutionContext } from 'ava';
import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { openSse, type SseClient } from './support/sse.ts';
import { waitUntil } from './support/receiver.ts';
import { hmacKey } from '../src/platform/hmac-key.ts';
import { recordPixKeyEvent, sql } from './events.helpers.ts';
import { streamEvents, StreamError } from '../sdk/src/index.ts';

// A stream never outlives its credential: two API processes of one deployment (real HTTP SSE clients), each checking
// open streams only every minute by itself, so only the database's change notifications, the JWT's expiry and the
// check made with every read can end them in time.
let a: TestApp;
let b: TestApp;
const clients = new Set<SseClient>();
test.before(async () => {
  a = await startTestApp();
  b = await startTestApp({}, { databaseUrl: a.databaseUrl });
  await waitUntil(async () => a.streams.stats().listening && b.streams.stats().listening, 10_000, 'both listening');
});
test.after.always(async () => {
  for (const c of clients) c.close();
  await b?.close();
  await a?.close();
});

async function stream(app: TestApp, token: string) {
  const c = await openSse(app.baseUrl, '/v1/events/stream', token);
  clients.add(c);
  return c;
}
const ids = (c: SseClient) => c.events.map((e) => e.id);

// "Within seconds": far below the minute of the periodic check, generous for a loaded machine.
const SECONDS = 15_000;
async function endsWithin(t: ExecutionContext, s: SseClient, ms: number, what: string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    s.ended.then(() => true),
    new Promise<false>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  t.true(ended, `${what} still open after ${ms} ms`);
  return Date.now();
}
const farewell = (s: SseClient) => s.comments.map((c) => c.text).find((text) => text.startsWith('encerrado'));

// An event of the merchant committed now, and positioned in the stream's order (so a stream that is still open and
// allowed would be sent it).
async function positioned(app: TestApp, merchantId: string) {
  const e = await recordPixKeyEvent(app, merchantId);
  await waitUntil(
    async () => (await sql(app, 'select 1 from event_stream where event_id = ?', [e.id])).length > 0,
    SECONDS,
    'the event positioned',
  );
  return e;
}

// The file's last test turns a trigger off: one test at a time.
test.serial(
  'an API key deleted: its streams on both processes end within seconds, and nothing committed after reaches them',
  async (t) => {
    const m = await createMerchant(a);
    const key = (await m.http.post('/v1/api-keys', { name: 'stream', description: 'listen' })).body.apiKey;
    const onA = await stream(a, key.value);
    const onB = await stream(b, key.value);
    const withJwt = await stream(b, m.token);
    t.deepEqual([onA.status, onB.status, withJwt.status], [200, 200, 200]);
    const before = await recordPixKeyEvent(a, m.merchantId);
    for (const s of [onA, onB, withJwt]) await s.waitForEvents(1, SECONDS);

    t.is((await m.http.del(`/v1/api-keys/${key.id}`)).status, 200);
    const after = await recordPixKeyEvent(a, m.merchantId); // committed after the revocation
    await endsWithin(t, onA, SECONDS, 'the stream on the revoking process');
    await endsWithin(t, onB, SECONDS, 'the stream on the other process');
    t.is((await withJwt.waitForEvents(2, SECONDS))[1].id, after.id, 'the JWT stream of the merchant goes on');
    for (const s of [onA, onB]) {
      t.deepEqual(ids(s), [before.id], 'the event before the revocation arrived, the one after never');
      t.is(farewell(s), 'encerrado: Chave de API inativa');
    }
    for (const app of [a, b]) {
      const again = await stream(app, key.value);
      t.is(again.status, 401);
      t.deepEqual(again.body, { code: 'unauthenticated', message: 'Chave de API inativa' });
    }
  },
);

test.serial('a merchant blocked by hand: every stream of it ends within seconds, on both processes', async (t) => {
  const m = await createMerchant(a);
  const key = (await m.http.post('/v1/api-keys', { name: 'stream', description: 'listen' })).body.apiKey;
  const other = await createMerchant(a);
  const streams = [await stream(a, key.value), await stream(b, m.token)];
  const bystander = await stream(b, other.token);
  const before = await recordPixKeyEvent(a, m.merchantId);
  for (const s of streams) await s.waitForEvents(1, SECONDS);

  await sql(a, `update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
  const after = await positioned(a, m.merchantId);
  for (const s of streams) await endsWithin(t, s, SECONDS, 'a stream of the blocked merchant');
  for (const s of streams) {
    t.deepEqual(ids(s), [before.id]);
    t.false(ids(s).includes(after.id));
    t.is(farewell(s), 'encerrado: Sua conta está inativa');
  }
  t.is((await stream(a, key.value)).status, 403);
  t.is((await stream(b, m.token)).status, 403);
  const theirs = await recordPixKeyEvent(a, other.merchantId);
  t.is((await bystander.waitForEvents(1, SECONDS))[0].id, theirs.id, "another merchant's stream goes on");
});

test.serial('a JWT that expires while its stream is open: the stream ends at its exp, not before', async (t) => {
  const m = await createMerchant(a);
  const exp = Math.floor(Date.now() / 1000) + 4;
  const token = jwt.sign({ role: 'USER', exp }, hmacKey(a.config.jwtSecret), { algorithm: 'HS256', subject: m.userId });
  const s = await stream(b, token);
  t.is(s.status, 200);
  const before = await recordPixKeyEvent(a, m.merchantId);
  await s.waitForEvents(1, SECONDS);
  const endedAt = await endsWithin(t, s, exp * 1000 - Date.now() + SECONDS, 'the stream of the expired JWT');
  t.true(endedAt >= exp * 1000, `ended ${exp * 1000 - endedAt} ms before exp`);
  const after = await positioned(a, m.merchantId);
  t.deepEqual(ids(s), [before.id]);
  t.false(ids(s).includes(after.id));
  t.is(farewell(s), 'encerrado: Token inválido ou expirado');
  const again = await stream(b, token);
  t.is(again.status, 401);
  t.deepEqual(again.body, { code: 'unauthenticated', message: 'Token inválido ou expirado' });
});

test.serial(
  'with no notification at all (the trigger off), an event committed after a revocation is still never sent',
  async (t) => {
    const m = await createMerchant(a);
    const key = (await m.http.post('/v1/api-keys', { name: 'stream', description: 'listen' })).body.apiKey;
    const s = await stream(b, key.value);
    const before = await recordPixKeyEvent(a, m.merchantId);
    await s.waitForEvents(1, SECONDS);
    await sql(a, 'alter table api_keys disable trigger api_keys_principals');
    try {
      await sql(a, `update api_keys set status = 'INACTIVE' where id = ?`, [key.id]);
    } finally {
      await sql(a, 'alter table api_keys enable trigger api_keys_principals');
    }
    // the read that finds the new event finds the revocation with it: the stream ends instead of sending it
    const after = await recordPixKeyEvent(a, m.merchantId);
    await endsWithin(t, s, SECONDS, 'the stream that read an event after its revocation');
    t.deepEqual(ids(s), [before.id]);
    t.false(ids(s).includes(after.id));
    t.is(farewell(s), 'encerrado: Chave de API inativa');
  },
);

test.serial(
  'the SDK stream client stops with StreamError 401 once its key is revoked: no reconnection loop',
  async (t) => {
    const m = await createMerchant(a);
    const key = (await m.http.post('/v1/api-keys', { name: 'sdk', description: 'listen' })).body.apiKey;
    const abort = new AbortController();
    t.teardown(() => abort.abort());
    const open = b.streams.stats().open;
    const events = streamEvents({ baseUrl: b.baseUrl, token: key.value, signal: abort.signal });
    const first = events.next(); // connects (after reading the merchant's latest event: none yet)
    await waitUntil(async () => b.streams.stats().open > open, SECONDS, 'the SDK connected');
    const before = await recordPixKeyEvent(a, m.merchantId);
    t.is((await first).value?.id, before.id);
    t.is((await m.http.del(`/v1/api-keys/${key.id}`)).status, 200);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      events.next().then(
        (r) => r,
        (err: unknown) => err,
      ),
      new Promise((r) => (timer = setTimeout(() => r('still streaming'), SECONDS))),
    ]);
    clearTimeout(timer);
    t.true(outcome instanceof StreamError, String(outcome));
    t.like(outcome, { status: 401, message: 'Chave de API inativa' });
  },
);
