import test from 'ava';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { createApiKeyFor, createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { createPrincipalCache, PRINCIPALS_CHANNEL } from '../src/auth/principal-cache.ts';
import type { Listener } from '../src/platform/listener.ts';

// Two API processes of one deployment over one database, each keeping what credentials resolve to for a minute: only
// the database's notification (or a revocation in the same process) can make them see a change in time.
let a: TestApp;
let b: TestApp;
test.before(async () => {
  a = await startTestApp({ PRINCIPAL_CACHE_MS: '60000' });
  b = await startTestApp({ PRINCIPAL_CACHE_MS: '60000' }, { databaseUrl: a.databaseUrl });
  await waitUntil(async () => a.streams.stats().listening && b.streams.stats().listening, 5000, 'both listening');
});
test.after.always(async () => {
  await b?.close();
  await a?.close();
});

const sql = (q: string, params: unknown[] = []) => a.orm.em.fork().execute(q, params);
const me = async (app: TestApp, token: string) => (await client(app.baseUrl, token).get('/v1/merchants/me')).status;

// The file's tests turn the triggers off and end LISTEN connections: one at a time.
test.serial(
  'a key revoked through one API process is refused by it at once and by the other within moments',
  async (t) => {
    const m = await createMerchant(a);
    const key = await createApiKeyFor(a, m.token);
    t.is(await me(a, key), 200);
    t.is(await me(b, key), 200);
    t.true(b.principals.size > 0);
    const [{ id }] = (await client(a.baseUrl, m.token).get('/v1/api-keys')).body.apiKeys;
    t.is((await client(a.baseUrl, m.token).del(`/v1/api-keys/${id}`)).status, 200);
    t.is(await me(a, key), 401); // the revoking process forgot it before answering
    const started = Date.now();
    await waitUntil(async () => (await me(b, key)) === 401, 3000, 'the other process to refuse the key');
    t.true(Date.now() - started < 3000);
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
  await waitUntil(async () => (await charge()).charge?.fee === 257, 3000, 'the new fee');
  await sql(`update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
  await waitUntil(async () => (await me(b, key)) === 403, 3000, 'the block');
  t.is(await me(a, m.token), 403);
});

test.serial('a credential is read from memory until the database announces a change', async (t) => {
  const m = await createMerchant(a);
  const key = await createApiKeyFor(a, m.token);
  t.is(await me(b, key), 200);
  await sql('alter table merchants disable trigger merchants_principals');
  try {
    await sql(`update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
    t.is(await me(b, key), 200); // nothing announced it: the kept principal answers
    t.is(await me(b, m.token), 403); // the JWT was never kept: read now
    await sql(`select pg_notify('${PRINCIPALS_CHANNEL}', '')`);
    await waitUntil(async () => (await me(b, key)) === 403, 3000, 'the announced change');
  } finally {
    await sql('alter table merchants enable trigger merchants_principals');
  }
});

test.serial(
  'while its LISTEN connection is down an API process reads every credential from the database',
  async (t) => {
    const m = await createMerchant(a);
    const key = await createApiKeyFor(a, m.token);
    t.is(await me(b, key), 200);
    await sql('alter table merchants disable trigger merchants_principals');
    try {
      await sql(
        `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'test-api-listen' and datname = current_database()`,
      );
      await waitUntil(async () => !b.streams.stats().listening, 3000, 'the LISTEN connection to be seen lost');
      t.is(await me(b, key), 200);
      await sql(`update merchants set status = 'BLOCKED' where id = ?`, [m.merchantId]);
      t.is(await me(b, key), 403); // not kept: a notification could have been missed
      t.false(b.streams.stats().listening, 'the check above ran while the listener was down');
      await waitUntil(async () => b.streams.stats().listening, 10_000, 'the LISTEN connection back');
      await sql(`update merchants set status = 'ACTIVE' where id = ?`, [m.merchantId]);
      t.is(await me(b, key), 200); // back up with an empty cache
    } finally {
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
  const cache = createPrincipalCache(listener, 200);
  let loads = 0;
  const load = async () => ({ n: ++loads });
  await cache.get('k', load);
  listener.setUp(false);
  t.deepEqual(await cache.get('k', load), { n: 2 });
  t.deepEqual(await cache.get('k', load), { n: 3 });
  listener.setUp(true);
  t.deepEqual(await cache.get('k', load), { n: 4 });
  t.deepEqual(await cache.get('k', load), { n: 4 });
  await new Promise((r) => setTimeout(r, 250));
  t.deepEqual(await cache.get('k', load), { n: 5 });
  t.is(createPrincipalCache(fakeListener(), 0).size, 0);
  const off = createPrincipalCache(fakeListener(), 0);
  await off.get('k', load);
  await off.get('k', load);
  t.is(loads, 7); // PRINCIPAL_CACHE_MS=0: every call reads
});
