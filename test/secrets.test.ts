import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { startReceiver, waitUntil, type Received, type Receiver } from './support/receiver.ts';
import { main } from '../src/ops.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';
import { open, parseKeyring, seal } from '../src/platform/secrets.ts';
import { loadConfig } from '../src/platform/config.ts';

// Webhook secrets at rest: sealed in the column, opened by the daemon to sign, re-sealed by secrets:rotate-key.
const key = () => randomBytes(32).toString('base64');
const K1 = `k1:${key()}`;
const K2 = `k2:${key()}`;
const PATH = '/v1/webhooks/merchant';

const receivers: Receiver[] = [];
const stops: (() => Promise<void>)[] = [];
test.after.always(async () => {
  for (const stop of stops.reverse()) await stop();
  await Promise.all(receivers.map((r) => r.close()));
});

async function app(secretsKeys: string): Promise<TestApp> {
  const a = await startTestApp({ SECRETS_KEYS: secretsKeys });
  stops.push(() => a.close());
  return a;
}
async function daemon(a: TestApp, secretsKeys: string) {
  const stop = await startBackground(a, 'webhooks', { SECRETS_KEYS: secretsKeys, WEBHOOK_RETRY_SCALE: '0.001' });
  stops.push(stop);
  return stop;
}
async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const stored = async (a: TestApp) =>
  new Map(
    (await a.orm.em.fork().execute<{ id: string; secret: string }[]>('select id, secret from webhooks')).map((r) => [
      r.id,
      r.secret,
    ]),
  );
const emit = (a: TestApp, merchantId: string) =>
  a.orm.em.fork().transactional((tx) => recordEvent(tx, a.boss, merchantId, 'charge.paid', { id: 'c1', amount: 1 }));
const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});
const verifies = (secret: string, req: Received) => {
  new StandardWebhook(secret.slice('wh_'.length)).verify(req.body, headersOf(req));
  return true;
};

async function ops(a: TestApp, secretsKeys: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env: { DATABASE_URL: a.databaseUrl, NODE_ENV: 'test', SECRETS_KEYS: secretsKeys },
  });
  return { code, err, json: JSON.parse(out.join('\n') || 'null') };
}

test('the column holds no plaintext secret, the merchant still sees it once, and the delivery verifies with it', async (t) => {
  const a = await app(K1);
  await daemon(a, K1);
  const m = await createMerchant(a);
  const r = await receiver();
  const w = (await m.http.post(PATH, { url: r.url() })).body.webhook;
  t.regex(w.secret, /^wh_[A-Za-z0-9+/]{43}=$/);

  const column = (await stored(a)).get(w.id)!;
  t.regex(column, /^v1:k1:[\w-]+:[\w-]+:[\w-]+$/);
  for (const part of [w.secret, w.secret.slice(3), Buffer.from(w.secret.slice(3), 'base64').toString('hex')])
    t.false(column.includes(part));
  t.is((await m.http.get(PATH)).body.webhooks[0].secret, `wh_****${w.secret.slice(-4)}`);

  await emit(a, m.merchantId);
  const [req] = await r.waitFor(1);
  t.true(verifies(w.secret, req!));
});

test('a sealed value opens only on its own row and only with its key; an unknown key id is named', (t) => {
  const ring = parseKeyring(K1, true);
  const sealed = seal(ring, 'wh_abc', 'row-1');
  t.not(seal(ring, 'wh_abc', 'row-1'), sealed, 'a fresh IV each time');
  t.is(open(ring, sealed, 'row-1'), 'wh_abc');
  t.throws(() => open(ring, sealed, 'row-2'), { message: /does not decrypt/ });
  t.throws(() => open(parseKeyring(K2, true), sealed, 'row-1'), { message: /unknown key id "k1".*SECRETS_KEYS/ });
  t.is(open(ring, 'wh_legacy', 'row-1'), 'wh_legacy', 'plaintext rows from before encryption still read');
});

test('only the full 16-byte GCM tag opens a value: a truncated or extended tag is refused', (t) => {
  const ring = parseKeyring(K1, true);
  const sealed = seal(ring, 'wh_abc', 'row-1');
  const parts = sealed.split(':');
  const tag = Buffer.from(parts[3]!, 'base64url');
  t.is(tag.length, 16);
  for (const bytes of [4, 8, 12, 15]) {
    const truncated = [...parts.slice(0, 3), tag.subarray(0, bytes).toString('base64url'), parts[4]].join(':');
    t.throws(() => open(ring, truncated, 'row-1'), { message: /does not decrypt/ }, `${bytes}-byte tag`);
  }
  const longer = [...parts.slice(0, 3), Buffer.concat([tag, Buffer.alloc(1)]).toString('base64url'), parts[4]];
  t.throws(() => open(ring, longer.join(':'), 'row-1'), { message: /does not decrypt/ });
});

test('a process without SECRETS_KEYS (worker, operator tools) cannot seal or open, and says why', (t) => {
  const none = loadConfig({ NODE_ENV: 'staging', DATABASE_URL: 'postgresql://x@y/z' }, 'worker').secrets;
  t.throws(() => seal(none, 'wh_abc', 'row-1'), { message: /SECRETS_KEYS is not set/ });
  t.throws(() => open(none, seal(parseKeyring(K1, true), 'wh_abc', 'row-1'), 'row-1'), {
    message: /unknown key id "k1"/,
  });
});

test('secrets:rotate-key re-seals every row under the new key in batches, resumes what it skipped, and deliveries verify with only the new key', async (t) => {
  const a = await app(K1);
  const m = await createMerchant(a);
  const r = await receiver();
  const shown = new Map<string, string>();
  for (let i = 0; i < 5; i++) {
    const w = (await m.http.post(PATH, { url: r.url(`/${i}`) })).body.webhook;
    shown.set(w.id, w.secret);
  }
  const [legacy, locked] = [...shown.keys()];
  // a row written before encryption existed
  await a.orm.em.fork().execute('update webhooks set secret = ? where id = ?', [shown.get(legacy!), legacy]);

  // a row held by another transaction is skipped, not waited for; the next run picks it up
  const holder = a.orm.em.fork();
  await holder.begin();
  await holder.execute('select id from webhooks where id = ? for update', [locked]);
  const first = await ops(a, `${K2},${K1}`, 'secrets:rotate-key', '--batch', '2');
  await holder.rollback();
  t.is(first.code, 0);
  t.like(first.json, { key: 'k2', resealed: 4, remaining: 1, failed: [] });
  t.true(first.err.length >= 2, 'progress is printed per batch');
  t.regex(first.err.at(-1)!, /4 of 5 re-encrypted under "k2"/);

  const second = await ops(a, `${K2},${K1}`, 'secrets:rotate-key', '--batch', '2');
  t.deepEqual(second.json, { key: 'k2', resealed: 1, remaining: 0, byKey: { k2: 5 }, failed: [] });
  t.like((await ops(a, `${K2},${K1}`, 'secrets:rotate-key')).json, { resealed: 0, remaining: 0 });

  const columns = await stored(a);
  for (const [id, secret] of shown) {
    t.true(columns.get(id)!.startsWith('v1:k2:'));
    t.false(columns.get(id)!.includes(secret.slice(3)));
  }

  // k1 removed: the daemon signs every delivery with the secret the merchant was shown at creation
  await daemon(a, K2);
  await emit(a, m.merchantId);
  const received = await r.waitFor(5);
  for (const req of received) {
    const id = [...shown.keys()][Number(req.path.slice(1))]!;
    t.true(verifies(shown.get(id)!, req));
  }
});

test('a row under an unknown key id fails clearly: rotation reports it and goes on, the daemon records why it sent nothing', async (t) => {
  const a = await app(K1);
  const m = await createMerchant(a);
  const r = await receiver();
  const good = (await m.http.post(PATH, { url: r.url('/good') })).body.webhook;
  const lost = (await m.http.post(PATH, { url: r.url('/lost') })).body.webhook;
  // sealed under a key nobody configured any more (k0 removed before its rows were rotated)
  const k0 = parseKeyring(`k0:${key()}`, true);
  await a.orm.em
    .fork()
    .execute('update webhooks set secret = ? where id = ?', [seal(k0, lost.secret, lost.id), lost.id]);

  const rotated = await ops(a, `${K2},${K1}`, 'secrets:rotate-key');
  t.is(rotated.code, 1);
  t.like(rotated.json, { resealed: 1, remaining: 1, byKey: { k0: 1, k2: 1 } });
  t.is(rotated.json.failed.length, 1);
  t.like(rotated.json.failed[0], { id: lost.id });
  t.regex(rotated.json.failed[0].reason, /unknown key id "k0"/);
  t.regex(rotated.err.at(-1)!, /1 secret\(s\) could not be opened/);

  await daemon(a, `${K2},${K1}`);
  await emit(a, m.merchantId);
  const [req] = await r.waitFor(1);
  t.is(req!.path, '/good');
  t.true(verifies(good.secret, req!));
  const log = await waitUntil(async () => {
    const [row] = await a.orm.em
      .fork()
      .execute<{ attempts: number; response: string | null; status_code: number | null }[]>(
        'select attempts, response, status_code from webhook_deliveries where webhook_id = ?',
        [lost.id],
      );
    return row && row.attempts > 0 ? row : undefined;
  });
  t.is(log.status_code, null);
  t.regex(log.response!, /segredo do webhook não pôde ser decifrado/);
  t.is(r.requests.filter((x) => x.path === '/lost').length, 0);
});

test('secrets:rotate-key re-seals a rotated-out secret during its overlap too: both still verify with only the new key', async (t) => {
  const a = await app(K1);
  const m = await createMerchant(a);
  const r = await receiver();
  const old = (await m.http.post(PATH, { url: r.url('/0') })).body.webhook;
  const rotated = (await m.http.post(`${PATH}/${old.id}/secret/rotate`, { overlapSeconds: 3600 })).body.webhook;
  const before = await ops(a, `${K2},${K1}`, 'secrets:rotate-key', '--dry-run');
  t.like(before.json, { wouldReseal: 1 });
  const run = await ops(a, `${K2},${K1}`, 'secrets:rotate-key');
  t.like(run.json, { resealed: 1, remaining: 0, byKey: { k2: 2 }, failed: [] });
  const [row] = await a.orm.em
    .fork()
    .execute<{ previous_secret: string }[]>('select previous_secret from webhooks where id = ?', [old.id]);
  t.true(row!.previous_secret.startsWith('v1:k2:'));

  await daemon(a, K2); // k1 removed
  await emit(a, m.merchantId);
  const [req] = await r.waitFor(1);
  t.true(verifies(rotated.secret, req!), 'the new secret verifies');
  t.true(verifies(old.secret, req!), 'the old one too, during its overlap');
});
