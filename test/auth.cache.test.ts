import test from 'ava';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { createApiKeyFor, createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { startRelay, type Relay } from './support/relay.ts';
import { createPrincipalCache, PRINCIPALS_CHANNEL } from '../src/auth/principal-cache.ts';
import type { Listener } from '../src/platform/listener.ts';

// Two API processes of one deployment over one database, each keeping what credentials resolve to for an hour: only
// the database's notification (or a revocation in the same process) can make them see a change, so a test that sees
// one has seen the notification work, however long it took. Nothing here is timed: each step waits for its condition
// (generous deadlines, for a loaded machine) or knows the order of events. B's LISTEN connection goes through a relay
// that holds back what PostgreSQL sends by 50 ms (a slow path, as a loaded machine makes it) and that can cut it.
const DEADLINE_MS = 30_000;
let a: TestApp;
let b: TestApp;
let relay: Relay;
const heard = new Set<string>(); // what B's listener has passed on, after the cache's own handler
test.before(async () => {
  a = await startTestApp({ PRINCIPAL_CACHE_MS: '3600000' });
  const direct = new URL(a.databaseUrl);
  relay = await startRelay(direct, { delayMs: 50 });
  const listenUrl = Object.assign(new URL(direct), { host: `127.0.0.1:${relay.port}` }).toString();
  b = await startTestApp({ PRINCIPAL_CACHE_MS: '3600000' }, { databaseUrl: a.databaseUrl, listenUrl });
  b.listener.on(PRINCIPALS_CHANNEL, (payload) => void heard.add(payload));
  await waitUntil(async () => a.listener.up && b.listener.up, DEADLINE_MS, 'both listening');
});
test.after.always(async () => {
  await b?.close();
  await a?.close();
  await relay?.close();
});

const sql = (q: string, params: unknown[] = []) => a.orm.em.fork().execute(q, params);
const me = async (app: TestApp, token: string) => (await client(app.baseUrl, token).get('/v1/merchants/me')).status;

// Every notification sent so far has reached B, and emptied its cache: PostgreSQL delivers a session's notifications
// in commit order, so once B hears one sent now, it has handled those before it. A test that then fills B's cache
// knows that no late notification (a key's or a merchant's creation) will empty it behind its back.
async function settled() {
  const marker = randomUUID();
  await sql(`select pg_notify('${PRINCIPALS_CHANNEL}', ?)`, [marker]);
  await waitUntil(async () => heard.has(marker), DEADLINE_MS, 'B to hear the notifications sent so far');
}

// The file's tests turn the triggers off and end LISTEN connections: one at a time.
test.serial(
  'a key revoked through one API process is refused by it at once and by the other once notified',
  async (t) => {
    const m = await createMerchant(a);
    const key = await createApiKeyFor(a, m.token);
    await settled();
    t.is(await me(a, key), 200);
    t.is(await me(b, key), 200);
    t.true(b.principals.size > 0); // B keeps it (for an hour): only the notification can change its answer
    const [{ id }] = (await client(a.baseUrl, m.token).get('/v1/api-keys')).body.apiKeys;
    t.is((await client(a.baseUrl, m.token).del(`/v1/api-keys/${id}`)).status, 200);
    t.is(await me(a, key), 401); // the revoking process forgot it before answering
    await waitUntil(async () => (await me(b, key)) === 401, DEADLINE_MS, 'the other process to refuse the key');
  },
);

test.serial('an operator changing a merchant by hand reaches every process: fees, block', async (t) => {
  const m = await createOnboardedMerchant(a);
  const key = await createApiKeyFor(a, m.token);
  const charge = async () =>
    (await client(b.baseUrl, key).post('/v1/charges', { amount: 10_000, description: 'x' })).body;
  t.is(
    (await charge()).charge.fee,
    Math.round((10_000 * b.config.platformFeeBps) / 10_000) + b.config.platformFeeFixed,
  );
  await sql('update merchants set fee_bps = 250, fee_fixed = 7 where id = ?', [m.merchantId]);
  await waitUntil(async () => (await charge()).charge?.fee === 257, DEADLINE_MS, 'the new fee');
  await sql(`update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
  await waitUntil(async () => (await me(b, key)) === 403, DEADLINE_MS, 'the block');
  t.is(await me(a, m.token), 403);
});

test.serial('a credential is read from memory until the database announces a change', async (t) => {
  const m = await createMerchant(a);
  const key = await createApiKeyFor(a, m.token);
  await sql('alter table merchants disable trigger merchants_principals');
  try {
    await settled();
    t.is(await me(b, key), 200);
    await sql(`update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
    t.is(await me(b, key), 200); // nothing announced it: the kept principal answers
    t.is(await me(b, m.token), 403); // the JWT was never kept: read now
    await sql(`select pg_notify('${PRINCIPALS_CHANNEL}', '')`);
    await waitUntil(async () => (await me(b, key)) === 403, DEADLINE_MS, 'the announced change');
  } finally {
    await sql('alter table merchants enable trigger merchants_principals');
  }
});

test.serial(
  'while its LISTEN connection is down an API process reads every credential from the database',
  async (t) => {
    const m = await createMerchant(a);
    const key = await createApiKeyFor(a, m.token);
    await sql('alter table merchants disable trigger merchants_principals');
    try {
      await settled();
      t.is(await me(b, key), 200);
      t.true(b.principals.size > 0);
      relay.cut(); // B's LISTEN connection drops, and no new one gets through until restored
      await waitUntil(async () => !b.listener.up, DEADLINE_MS, 'the LISTEN connection to be seen lost');
      t.is(b.principals.size, 0, 'forgotten when the connection went down');
      t.is(await me(b, key), 200);
      t.is(b.principals.size, 0, 'not kept while it is down');
      await sql(`update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
      t.is(await me(b, key), 403); // read now: a notification could have been missed
      t.false(b.listener.up, 'the checks above ran while the listener was down');
      relay.restore();
      await waitUntil(async () => b.listener.up, DEADLINE_MS * 2, 'the LISTEN connection back'); // after its backoff
      await sql(`update merchants set status = 'ACTIVE' where id = ?`, [m.merchantId]);
      t.is(await me(b, key), 200); // back up with an empty cache
      t.true(b.principals.size > 0, 'kept again');
    } finally {
      relay.restore();
      await sql('alter table merchants enable trigger merchants_principals');
    }
  },
);

test.serial('a key in use keeps its last-used time, to the minute', async (t) => {
  const m = await createMerchant(a);
  const key = await createApiKeyFor(a, m.token);
  t.is(await me(b, key), 200);
  t.is(await me(b, key), 200);
  const [listed] = (await client(a.baseUrl, m.token).get('/v1/api-keys')).body.apiKeys;
  t.truthy(Date.parse(listed.lastUsedAt));
  const [{ n }] = (await sql(
    `select count(*) as n from api_keys where id = ? and last_used_at > now() - interval '1 minute'`,
    [listed.id],
  )) as { n: string }[];
  t.is(Number(n), 1);
});

// The cache alone, over a listener the test drives.
function fakeListener() {
  const handlers: ((payload: string) => void)[] = [];
  const states: ((up: boolean) => void)[] = [];
  const l = {
    up: true,
    on: (_channel: string, h: (payload: string) => void) => void handlers.push(h),
    onState: (h: (up: boolean) => void) => void states.push(h),
    close: async () => {},
    notify: () => handlers.forEach((h) => h('')),
    setUp: (up: boolean) => {
      l.up = up;
      states.forEach((h) => h(up));
    },
  };
  return l satisfies Listener;
}

test('a read that raced with a change is not kept', async (t) => {
  const listener = fakeListener();
  const cache = createPrincipalCache(listener, 60_000);
  let loads = 0;
  const load = async () => ({ n: ++loads });
  t.deepEqual(await cache.get('k', load), { n: 1 });
  t.deepEqual(await cache.get('k', load), { n: 1 }); // kept
  listener.notify();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const racing = cache.get('k', async () => {
    await gate;
    return load();
  });
  listener.notify(); // a change committed while the read was in flight
  release();
  t.deepEqual(await racing, { n: 2 });
  t.deepEqual(await cache.get('k', load), { n: 3 }); // the racing read was not kept
  t.deepEqual(await cache.get('k', load), { n: 3 });
  t.is(await cache.get('unknown', async () => undefined), undefined);
  t.is(cache.size, 1); // an unknown credential is never kept
});

test('nothing is kept while the listener is down, nor past the time limit', async (t) => {
  const listener = fakeListener();
  const cache = createPrincipalCache(listener, 3_600_000);
  let loads = 0;
  const load = async () => ({ n: ++loads });
  await cache.get('k', load);
  listener.setUp(false);
  t.deepEqual(await cache.get('k', load), { n: 2 });
  t.deepEqual(await cache.get('k', load), { n: 3 });
  listener.setUp(true);
  t.deepEqual(await cache.get('k', load), { n: 4 });
  t.deepEqual(await cache.get('k', load), { n: 4 }); // within the hour, however slow the machine

  // a limit of 50 ms, read again after at least 100: expired, however fast the machine
  const brief = createPrincipalCache(fakeListener(), 50);
  t.deepEqual(await brief.get('k', load), { n: 5 });
  await sleep(100);
  t.deepEqual(await brief.get('k', load), { n: 6 });

  t.is(createPrincipalCache(fakeListener(), 0).size, 0);
  const off = createPrincipalCache(fakeListener(), 0);
  await off.get('k', load);
  await off.get('k', load);
  t.is(loads, 8); // PRINCIPAL_CACHE_MS=0: every call reads
});
