// The acquirer's two notification routes (HMAC-signed, and the API Pix webhook with its token) take any body: a
// malformed one, however well signed, is a 4xx JSON error that queues nothing; never a 5xx.
import test from 'ava';
import fc from 'fast-check';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { createTestCerts } from './support/apipix/test-certs.ts';
import { APIPIX_SECRETS } from './support/apipix/stub.ts';
import { signAcquirerBody, SIGNATURE_HEADER } from '../src/payments/notifications.routes.ts';
import { QUEUES } from '../src/platform/queue.ts';

const TOKEN = 'tok_' + 'f00dfeed'.repeat(5);
let app: TestApp;

// ACQUIRER=apipix mounts the second route; no PSP is ever called here (the worker that would ask it does not run).
test.before(async () => {
  const certs = createTestCerts();
  try {
    app = await startTestApp({
      ...APIPIX_SECRETS,
      ACQUIRER: 'apipix',
      APIPIX_BASE_URL: 'https://127.0.0.1:9',
      APIPIX_CLIENT_ID: 'id',
      APIPIX_CLIENT_SECRET: 'secret',
      APIPIX_CERT_FILE: certs.client.cert,
      APIPIX_KEY_FILE: certs.client.key,
      APIPIX_PIX_KEY: 'recebedor@example.com',
      APIPIX_WEBHOOK_TOKEN: TOKEN,
    });
  } finally {
    certs.remove();
  }
});
test.after.always(async () => {
  await app?.close();
});

const signed = (body: string) =>
  client(app.baseUrl).call('POST', '/v1/acquirer/notifications', body, {
    'content-type': 'application/json',
    [SIGNATURE_HEADER]: signAcquirerBody(app.config.acquirerWebhookSecret, body),
  });
const apiPix = (body: string, path = `/v1/acquirer/apipix/${TOKEN}/pix`) =>
  client(app.baseUrl).call('POST', path, body, { 'content-type': 'application/json' });

const queued = async () =>
  Number(
    (
      await app.orm.em
        .fork()
        .execute(`select count(*) as n from pgboss.job where name in (?, ?)`, [
          QUEUES.acquirerNotification,
          QUEUES.refundSend,
        ])
    )[0].n,
  );

const E2E = 'E00000000202611221230aB3dE5fG7hJ';
const TXID = '019a8f3c5e7b7d2a9c4e1f6b8a3d5c72';
const good = { endToEndId: E2E, txid: TXID, valor: '10.50', horario: '2026-11-22T12:30:05.000Z' };

// What the security review and the fuzzer sent, and their neighbours.
const MALFORMED = [
  '{"pix":[null]}',
  '[1]',
  '["x"]',
  '1',
  '"pix"',
  'null',
  '{"pix":null}',
  '{"pix":{}}',
  '{"pix":"x"}',
  '{"pix":[1]}',
  '{"pix":["x"]}',
  '{"pix":[[]]}',
  '{"pix":[[null]]}',
  '{"pix":[true]}',
  '{"pix":[{"pix":[null]}]}',
  '{"pix":[{"endToEndId":null}]}',
  '{"pix":[[{"endToEndId":"E00000000202611221230aB3dE5fG7hJ"}]]}',
  JSON.stringify({ pix: [good, null] }),
  JSON.stringify({ pix: [{ ...good, endToEndId: [E2E] }] }),
  JSON.stringify({ pix: [{ ...good, endToEndId: { toString: E2E } }] }),
  JSON.stringify({ pix: Array.from({ length: 1001 }, () => good) }),
];
// Only the signed route reads these (the API Pix route takes the Pix from the PSP, whatever the body says of them).
const MALFORMED_SIGNED = [
  JSON.stringify({ pix: [{ ...good, valor: '10000000000.00' }] }), // beyond the API Pix pattern (10 integer digits)
  JSON.stringify({ pix: [{ ...good, valor: '0.00' }] }),
  JSON.stringify({ pix: [{ ...good, valor: 10.5 }] }),
  JSON.stringify({ pix: [{ ...good, txid: 12 }] }),
  JSON.stringify({ pix: [{ ...good, horario: '0000-01-01T00:00:00Z' }] }), // PostgreSQL has no year 0
  JSON.stringify({ pix: [{ ...good, horario: '+275760-09-13T00:00:00.000Z' }] }),
  JSON.stringify({ pix: [{ ...good, horario: 'ontem' }] }),
  JSON.stringify({ pix: [{ ...good, horario: 1764000000000 }] }),
];

test.serial('a malformed notification with a valid signature is a 400 JSON error that queues nothing', async (t) => {
  const before = await queued();
  for (const body of [...MALFORMED, ...MALFORMED_SIGNED, '{"pix":', '']) {
    const res = await signed(body);
    t.is(res.status, 400, body.slice(0, 200));
    t.is(typeof res.body.message, 'string', body.slice(0, 200));
  }
  t.is(await queued(), before);
  // ...and a well-formed one is still accepted (a txid may be absent or null: a Pix paid without one), up to the largest
  // amount the standard allows (one no charge matches is recorded and returned by the worker)
  const ok = await signed(
    JSON.stringify({
      pix: [
        good,
        { ...good, endToEndId: E2E.replace('E', 'F'), txid: null },
        { ...good, endToEndId: E2E.replace('E', 'H'), valor: '9999999999.99' },
      ],
    }),
  );
  t.is(ok.status, 200);
  t.deepEqual(ok.body, { received: 3 });
});

test.serial('a malformed API Pix webhook body is a 400 JSON error that queues nothing', async (t) => {
  const before = await queued();
  for (const body of MALFORMED) {
    for (const path of [`/v1/acquirer/apipix/${TOKEN}`, `/v1/acquirer/apipix/${TOKEN}/pix`]) {
      const res = await apiPix(body, path);
      t.is(res.status, 400, body.slice(0, 200));
      t.is(typeof res.body.message, 'string', body.slice(0, 200));
    }
  }
  t.is(await queued(), before);
  // garbage beside a valid endToEndId is only a hint the worker ignores: the Pix is still queued to be asked about
  const hints = await apiPix(
    JSON.stringify({
      pix: [
        { endToEndId: E2E.replace('E', 'G'), txid: [1], valor: null, horario: {}, devolucoes: [null, 1, { id: 7 }] },
      ],
    }),
  );
  t.is(hints.status, 200);
  t.deepEqual(hints.body, { received: 1, refunds: 0 });
});

// Pieces that are sometimes right, so the property also walks past the first checks.
const e2e = fc.oneof(fc.constant(E2E), fc.stringMatching(/^[a-zA-Z0-9]{32}$/), fc.jsonValue({ maxDepth: 1 }));
const item = fc.record(
  {
    endToEndId: e2e,
    txid: fc.oneof(fc.constant(TXID), fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
    valor: fc.oneof(
      fc.constantFrom('10.50', '0.00', '9999999999.99', '21474836.47', '21474836.48', '1e3', '-1.00'),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    horario: fc.oneof(
      fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())),
      fc.constantFrom('2026-02-30T00:00:00Z', '2026-11-22T12:30:05-03:00', '2026-11-22 12:30'),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    devolucoes: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .record({ pix: fc.array(fc.oneof(item, fc.jsonValue({ maxDepth: 2 })), { maxLength: 4 }) })
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 20 }),
);

test.serial('property: any JSON, signed or with the right token, is answered 200 or 4xx JSON, never 5xx', async (t) => {
  let refused = 0;
  for (const send of [signed, (b: string) => apiPix(b)]) {
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const before = await queued();
        const res = await send(payload);
        const where = `${payload.slice(0, 300)} -> ${res.status} ${JSON.stringify(res.body)}`;
        if (res.status === 200) return;
        if (res.status !== 400 || typeof res.body?.message !== 'string') throw new Error(`not a 400 JSON: ${where}`);
        refused++;
        if ((await queued()) !== before) throw new Error(`a refused notification queued: ${where}`);
      }),
      { numRuns: 150, examples: MALFORMED.map((m) => [m]) },
    );
  }
  t.true(refused > 200, `only ${refused} bodies were refused`);
});
