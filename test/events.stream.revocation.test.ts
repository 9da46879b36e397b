import test from 'ava';
import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { openSse, type SseClient } from './support/sse.ts';
import { recordPixKeyEvent, sql } from './events.helpers.ts';
import { hmacKey } from '../src/platform/hmac-key.ts';

// Issue 31: a stream outlives none of its credential. Two API processes over one database whose streams check their
// credential on their own only once an hour, so what ends a stream here is the database's notification of the change
// (pix_principals, heard by every API process), or the JWT's expiry: within seconds, and no event written after it.
const HOUR = 3600_000;
let a: TestApp;
let b: TestApp;
const clients = new Set<SseClient>();
test.before(async () => {
  a = await startTestApp({}, { credentialCheckMs: HOUR });
  b = await startTestApp({}, { databaseUrl: a.databaseUrl, credentialCheckMs: HOUR });
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

// Resolves when the stream ends; rejects if it is still open after `ms`.
const endsWithin = (c: SseClient, ms: number) =>
  Promise.race([
    c.ended,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`the stream was still open after ${ms} ms`)), ms)),
  ]);

test.serial(
  'an API key deleted: its streams on both API processes end at once; nothing after the deletion is sent',
  async (t) => {
    const m = await createMerchant(a);
    const key = (await m.http.post('/v1/api-keys', { name: 'stream', description: 'listen' })).body.apiKey;
    const [onA, onB] = [await stream(a, key.value), await stream(b, key.value)];
    const before = await recordPixKeyEvent(a, m.merchantId);
    await Promise.all([onA.waitForEvents(1), onB.waitForEvents(1)]);

    t.is((await m.http.del(`/v1/api-keys/${key.id}`)).status, 200);
    const after = await recordPixKeyEvent(a, m.merchantId);
    await Promise.all([endsWithin(onA, 5000), endsWithin(onB, 5000)]);
    for (const c of [onA, onB])
      t.deepEqual(
        c.events.map((e) => e.id),
        [before.id],
        'the event after the deletion never came',
      );
    t.not(after.id, before.id);
    const again = await stream(b, key.value);
    t.is(again.status, 401, 'the reconnection is refused');
  },
);

test.serial('a merchant blocked by an operator (SQL): its streams end; unblocked, a new one opens', async (t) => {
  const m = await createMerchant(a);
  const onB = await stream(b, m.token);
  await sql(a, `update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
  const after = await recordPixKeyEvent(a, m.merchantId);
  await endsWithin(onB, 5000);
  t.false(onB.events.some((e) => e.id === after.id));
  t.is((await stream(b, m.token)).status, 403);
  await sql(a, `update merchants set status = 'ACTIVE' where id = ?`, [m.merchantId]);
  t.is((await stream(b, m.token)).status, 200);
});

test.serial("a JWT's stream ends at its expiry, and writes nothing after it", async (t) => {
  const m = await createMerchant(a);
  const exp = Math.floor(Date.now() / 1000) + 3;
  const token = jwt.sign({ role: 'USER', exp }, hmacKey(a.config.jwtSecret), {
    algorithm: 'HS256',
    subject: m.userId,
  });
  const c = await stream(a, token);
  t.is(c.status, 200);
  const first = await recordPixKeyEvent(a, m.merchantId);
  await c.waitForEvents(1);
  await endsWithin(c, 10_000);
  const endedAt = Date.now();
  t.true(endedAt >= exp * 1000 - 50, `ended ${exp * 1000 - endedAt} ms before the expiry`);
  await recordPixKeyEvent(a, m.merchantId);
  t.deepEqual(
    c.events.map((e) => e.id),
    [first.id],
  );
  t.is((await stream(a, token)).status, 401);
});

test.serial(
  'other credentials are untouched: a JWT stream of the same merchant stays open when a key is deleted',
  async (t) => {
    const m = await createMerchant(a);
    const key = (await m.http.post('/v1/api-keys', { name: 'other', description: 'listen' })).body.apiKey;
    const withJwt = await stream(b, m.token);
    t.is((await m.http.del(`/v1/api-keys/${key.id}`)).status, 200);
    const e = await recordPixKeyEvent(a, m.merchantId);
    await withJwt.waitForEvents(1);
    t.deepEqual(
      withJwt.events.map((x) => x.id),
      [e.id],
    );
  },
);
