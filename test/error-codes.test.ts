import test from 'ava';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ERROR_CODES, type ErrorCode } from '../src/platform/error-codes.ts';
import { loadOpenApiDocument } from '../src/platform/api-docs.ts';
import { startBackground, startTestApp, watchErrorAnswer, type TestApp } from './support/app.ts';
import { client, type Reply } from './support/client.ts';
import { createApiKeyFor, createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { catalogueRows, codesOf, CODES, errorBodyProblem, messageOf } from './support/error-codes.ts';

const doc = loadOpenApiDocument() as any;
const schemas = doc.components.schemas;

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

// An answer with exactly this status and body (code first, as every error body has it).
function answered(t: any, r: Reply, status: number, body: Record<string, unknown>) {
  t.is(r.status, status, JSON.stringify(r.body));
  t.deepEqual(r.body, body);
  t.deepEqual(Object.keys(r.body as object).slice(0, 2), ['code', 'message']);
}

// ---- the catalogue and the document ----

test('the OpenAPI ErrorCode enum is the catalogue, and its table shows each code with its status and messages', (t) => {
  t.deepEqual(schemas.ErrorCode.enum, CODES);
  const rows = (schemas.ErrorCode.description as string).split('\n').filter((l) => l.startsWith('| `'));
  t.deepEqual(rows, catalogueRows());
  t.true(CODES.length > 40);
});

test('every error schema requires a code of the catalogue', (t) => {
  t.deepEqual(schemas.Error.required, ['code', 'message']);
  t.is(schemas.Error.properties.code.$ref, '#/components/schemas/ErrorCode');
  t.true(schemas.ValidationError.required.includes('code'));
  t.true((schemas.ValidationError.properties.code.enum as string[]).every((c) => c in ERROR_CODES));
  t.true(schemas.InternalError.required.includes('code'));
  t.is(schemas.InternalError.properties.code.const, 'internal_error');
  // every narrowing of a response names codes of the catalogue
  const narrowed = [...JSON.stringify(doc).matchAll(/"code":\{"(?:const|enum)":(\[[^\]]*\]|"[^"]*")/g)].flatMap(
    ([, v]) => [JSON.parse(v)].flat() as string[],
  );
  t.true(narrowed.length > 40);
  t.deepEqual(
    narrowed.filter((c) => !(c in ERROR_CODES)),
    [],
  );
});

test('codes are snake_case, and every message of the catalogue belongs to its own code only', (t) => {
  for (const code of CODES) {
    t.regex(code, /^[a-z]+(_[a-z]+)*$/);
    for (const m of ERROR_CODES[code].messages) {
      const sample = m.replace(/\{[A-Za-z]+\}/g, 'X');
      t.deepEqual(codesOf(sample), [code], sample);
    }
  }
  // a family holds its own joined messages and nothing else
  t.true(messageOf('prerequisites_missing', 'KYC não aprovado; Nenhuma chave PIX ativa'));
  t.false(messageOf('not_found', 'Cobrança não encontrada; Erro interno'));
  t.is(errorBodyProblem(404, { code: 'not_found', message: 'Cobrança não encontrada' }), null);
  t.regex(errorBodyProblem(404, { message: 'Cobrança não encontrada' })!, /code undefined/);
  t.regex(errorBodyProblem(404, { code: 'not_found', message: 'Saldo insuficiente' })!, /family/);
  t.regex(errorBodyProblem(422, { code: 'not_found', message: 'Cobrança não encontrada' })!, /status 422/);
});

// Every `new XError('literal' or CONSTANT, 'code'?)` of src: the message is of the family of the code it is thrown with
// (its own, or its class's default). The suite's answers are checked the same way by the test app (support/app.ts).
test('every error message thrown in src belongs to the family of the code it is thrown with', (t) => {
  const DEFAULTS: Record<string, ErrorCode> = {
    UnauthorizedError: 'unauthenticated',
    ForbiddenError: 'forbidden',
    NotFoundError: 'not_found',
    AcquirerUnavailableError: 'acquirer_unavailable',
    AcquirerRefusedError: 'acquirer_refused',
  };
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );
  const literal = String.raw`'(?:[^'\\]|\\.)*'|\x60[^\x60]*\x60`;
  const call = new RegExp(
    String.raw`new (\w+Error)\(\s*(?:(\d{3}),\s*)?(${literal}|[A-Z_]+(?:\.\w+)?|AUTH_MESSAGES\.\w+)\s*(?:,\s*[\w.]+\s*)?(?:,\s*'([a-z_]+)')?\s*,?\s*\)`,
    'g',
  );
  const auth = readFileSync('src/platform/errors.ts', 'utf8');
  let checked = 0;
  for (const file of files('src')) {
    const source = readFileSync(file, 'utf8');
    const resolve = (expr: string): string | null => {
      if (/^['\x60]/.test(expr)) return expr.slice(1, -1);
      const [name, key] = expr.split('.');
      const where = name === 'AUTH_MESSAGES' ? auth : source;
      const found = key
        ? new RegExp(String.raw`\n\s+${key}:\s*(${literal})`).exec(where.slice(where.indexOf(`${name} = {`)))
        : new RegExp(String.raw`const ${name} =\s*(${literal})`).exec(where);
      return found ? found[1].slice(1, -1) : null;
    };
    for (const [, cls, , expr, explicit] of source.matchAll(call)) {
      const code = (explicit ?? DEFAULTS[cls]) as ErrorCode | undefined;
      const raw = resolve(expr);
      if (!code || raw === null) continue;
      const message = raw.replace(/\$\{[^}]*\}/g, 'X').replace(/\\'/g, "'");
      t.true(messageOf(code, message), `${file}: ${cls}(${expr}) with ${code}: "${message}"`);
      checked++;
    }
  }
  t.log(`${checked} throw sites checked`);
  t.true(checked > 60);
});

// ---- real answers ----

test('401: no Authorization header, and a token that is not one', async (t) => {
  answered(t, await client(app.baseUrl).get('/v1/charges'), 401, {
    code: 'unauthenticated',
    message: 'Cabeçalho de autorização ausente',
  });
  answered(t, await client(app.baseUrl, 'not-a-token').get('/v1/charges'), 401, {
    code: 'unauthenticated',
    message: 'Token inválido ou expirado',
  });
  answered(
    t,
    await client(app.baseUrl).post('/v1/auth/login', { email: 'x@example.com', password: 'wrong one' }),
    401,
    {
      code: 'invalid_credentials',
      message: 'Credenciais inválidas',
    },
  );
});

test('403: an API key on a route that asks a JWT login', async (t) => {
  const m = await createMerchant(app);
  const key = await createApiKeyFor(app, m.token);
  answered(t, await client(app.baseUrl, key).get('/v1/api-keys'), 403, {
    code: 'forbidden',
    message: 'Esta rota exige login com JWT',
  });
});

test('404: an unknown route, and a charge that does not exist', async (t) => {
  const m = await createMerchant(app);
  answered(t, await m.http.get('/v1/nowhere'), 404, { code: 'route_not_found', message: 'Rota não encontrada' });
  answered(t, await m.http.get(`/v1/charges/${randomUUID()}`), 404, {
    code: 'not_found',
    message: 'Cobrança não encontrada',
  });
});

test('400: a validation failure with its errors, and a body that is not JSON', async (t) => {
  const m = await createOnboardedMerchant(app);
  const invalid = await m.http.post('/v1/charges', { amount: 0 });
  t.is(invalid.status, 400);
  t.is(invalid.body.code, 'validation_failed');
  t.is(invalid.body.message, 'Dados inválidos');
  t.true(invalid.body.errors.some((e: { field: string }) => e.field === 'amount'));
  answered(t, await m.http.post('/v1/charges', '{"amount": 10'), 400, {
    code: 'malformed_json',
    message: 'JSON malformado no corpo da requisição',
  });
});

test('413 and 415: a body too large, and a body that is not JSON by its Content-Type', async (t) => {
  const m = await createOnboardedMerchant(app);
  answered(t, await m.http.post('/v1/charges', { amount: 100, description: 'x'.repeat(70_000) }), 413, {
    code: 'payload_too_large',
    message: 'Corpo da requisição muito grande',
  });
  answered(t, await m.http.post('/v1/charges', 'amount=100', { 'content-type': 'text/plain' }), 415, {
    code: 'unsupported_media_type',
    message: 'Content-Type deve ser application/json',
  });
});

test('409: an idempotency key used again with another body', async (t) => {
  const m = await createOnboardedMerchant(app);
  const key = { 'x-idempotency-key': `order-${randomUUID()}` };
  t.is((await m.http.post('/v1/charges', { amount: 1000, description: 'Pedido 1' }, key)).status, 201);
  answered(t, await m.http.post('/v1/charges', { amount: 2000, description: 'Pedido 1' }, key), 409, {
    code: 'idempotency_conflict',
    message: 'Chave de idempotência já usada com outro corpo de requisição',
  });
});

test('422: a withdrawal over the balance, and paying a charge that is no longer pending', async (t) => {
  const m = await createOnboardedMerchant(app);
  answered(
    t,
    await m.http.post('/v1/merchants/me/withdrawals', { amount: 1000, pixKey: 'a@example.com', pixKeyType: 'EMAIL' }),
    422,
    { code: 'insufficient_balance', message: 'Saldo insuficiente' },
  );
  const stop = await startBackground(app, 'worker');
  t.teardown(stop);
  const charge = (await m.http.post('/v1/charges', { amount: 1000, description: 'Pedido 2' })).body.charge;
  t.is((await m.http.post(`/v1/sandbox/charges/${charge.id}/pay`)).status, 202);
  for (let i = 0; i < 200 && (await m.http.get(`/v1/charges/${charge.id}`)).body.charge.status !== 'PAID'; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  answered(t, await m.http.post(`/v1/sandbox/charges/${charge.id}/pay`), 422, {
    code: 'charge_not_pending',
    message: 'Cobrança não está pendente',
  });
});

test('429: over the rate limit', async (t) => {
  const limited = await startTestApp({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_API_PER_MINUTE: '2' });
  try {
    const m = await createMerchant(limited);
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await m.http.get('/v1/merchants/me'));
    t.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 429],
    );
    answered(t, replies[2], 429, {
      code: 'rate_limited',
      message: 'Muitas requisições, tente novamente em instantes',
    });
  } finally {
    await limited.close();
  }
});

test('the test app watch refuses an error answer without a listed code, and lets good ones and pages through', async (t) => {
  const refused: string[] = [];
  const answers: Record<string, [number, string, string]> = {
    '/bare': [404, 'application/json', JSON.stringify({ message: 'Cobrança não encontrada' })],
    '/unknown': [400, 'application/json; charset=utf-8', JSON.stringify({ code: 'oops', message: 'Dados inválidos' })],
    '/good': [404, 'application/json', JSON.stringify({ code: 'not_found', message: 'Cobrança não encontrada' })],
    '/page': [404, 'text/html', '<h1>Cobrança não encontrada</h1>'],
    '/ok': [200, 'application/json', JSON.stringify({ message: 'fine' })],
  };
  const server = createServer((req, res) => {
    watchErrorAnswer(req, res, refused);
    const [status, type, body] = answers[req.url!];
    res.writeHead(status, { 'content-type': type });
    res.write(body.slice(0, 5)); // in two pieces, as a stream may send it
    res.end(body.slice(5));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const path of Object.keys(answers)) await (await fetch(base + path)).text();
  server.close();
  t.is(refused.length, 2, refused.join('\n'));
  t.regex(refused[0], /^GET \/bare 404 .*code undefined/);
  t.regex(refused[1], /^GET \/unknown 400 .*code "oops"/);
});
