import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app.ts';
import { createApiKeyFor, createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { checkResponse } from './support/openapi-check.ts';
import { INPUT_MESSAGES } from '../src/platform/input-guard.ts';

// Every operation documents every status it can answer. The test walks the OpenAPI document the running app serves
// (GET /openapi.json) and asks each operation the questions any client can ask it: a query or a path the input guard
// refuses (NUL, bad percent-encoding), no credential, a blocked merchant's, an API key, an unknown id, a body that is
// not JSON or too large, and, on a second process of the same deployment with budgets of one request, the same again
// (rate limits). Whatever it answers must be listed for that operation, with its body as documented; and what the
// answers reveal of an operation (it sits behind the input guard, it takes a credential, it is JWT-only) must be
// listed too. No list of operations or statuses is written here: a route or a status added tomorrow is asked the same.

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const BODY_METHODS = new Set(['post', 'put', 'patch']);

let app: TestApp;
let limited: TestApp;
let doc: Json;
const tokens: Record<'jwt' | 'blocked' | 'apiKey' | 'limitedJwt', string> = {
  jwt: '',
  blocked: '',
  apiKey: '',
  limitedJwt: '',
};

test.before(async () => {
  app = await startTestApp();
  const m = await createOnboardedMerchant(app);
  tokens.jwt = m.token;
  tokens.apiKey = await createApiKeyFor(app, m.token);
  tokens.blocked = (await createMerchant(app, { kyc: 'APPROVED', status: 'BLOCKED' })).token;
  tokens.limitedJwt = (await createOnboardedMerchant(app)).token;
  doc = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as Json;
  // a second API process of the same deployment, with every budget at one request a minute
  limited = await startTestApp(
    {
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_API_PER_MINUTE: '1',
      RATE_LIMIT_AUTH_IP_PER_MINUTE: '1',
      RATE_LIMIT_AUTH_EMAIL_PER_MINUTE: '1',
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1',
    },
    { databaseUrl: app.databaseUrl },
  );
});
test.after.always(async () => {
  await limited?.close();
  await app?.close();
});

type Operation = { path: string; method: string; op: Json };
const operations = (): Operation[] =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => m in (item as Json)).map((method) => ({ path, method, op: (item as Json)[method] as Json })),
  );

// A path of the template with every parameter replaced (an id no one has, by default).
const fill = (template: string, value: (name: string) => string = () => randomUUID()) =>
  template.replace(/\{([^}]+)\}/g, (_m, name: string) => value(name));

type Answer = { status: number; body: unknown; contentType: string | null; url: string; method: string };

async function ask(
  base: string,
  method: string,
  url: string,
  { token, body, contentType }: { token?: string; body?: string; contentType?: string } = {},
): Promise<Answer> {
  const abort = new AbortController();
  const res = await fetch(base + url, {
    method: method.toUpperCase(),
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': contentType ?? 'application/json' } : {}),
    },
    body,
    signal: abort.signal,
  });
  const type = res.headers.get('content-type');
  let parsed: unknown = '';
  if (type?.startsWith('text/event-stream'))
    abort.abort(); // an open stream: its status and headers are the answer
  else {
    const text = await res.text();
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, body: parsed, contentType: type, url, method };
}

// The questions: each a request any client may send, and what it is named in a failure.
function questions({
  path,
  method,
}: Operation): { name: string; base: 'app' | 'limited'; send: () => Promise<Answer> }[] {
  const base = () => app.baseUrl;
  const json = BODY_METHODS.has(method) ? { body: '{}' } : {};
  const hasParams = path.includes('{');
  const q = (name: string, send: () => Promise<Answer>, where: 'app' | 'limited' = 'app') => ({
    name,
    base: where,
    send,
  });
  return [
    q('a NUL in the query', () => ask(base(), method, `${fill(path)}?probe=%00`, json)),
    ...(hasParams
      ? [
          q('a path parameter with bad percent-encoding', () =>
            ask(
              base(),
              method,
              fill(path, () => '%E0%A4%A'),
              json,
            ),
          ),
          q('a NUL path parameter', () =>
            ask(
              base(),
              method,
              fill(path, () => '%00'),
              json,
            ),
          ),
          q('a path parameter that is no id', () =>
            ask(
              base(),
              method,
              fill(path, () => 'x'),
              { ...json, token: tokens.jwt },
            ),
          ),
        ]
      : []),
    q('no credential', () => ask(base(), method, fill(path), json)),
    q('a blocked merchant', () => ask(base(), method, fill(path), { ...json, token: tokens.blocked })),
    q('an API key', () => ask(base(), method, fill(path), { ...json, token: tokens.apiKey })),
    q('a JWT and ids no one has', () => ask(base(), method, fill(path), { ...json, token: tokens.jwt })),
    ...(BODY_METHODS.has(method)
      ? [
          q('a body that is not JSON', () =>
            ask(base(), method, fill(path), { token: tokens.jwt, body: 'x', contentType: 'text/plain' }),
          ),
          q('a body over every limit', () =>
            ask(base(), method, fill(path), { token: tokens.jwt, body: JSON.stringify({ x: 'a'.repeat(1_100_000) }) }),
          ),
        ]
      : []),
    ...[1, 2, 3].map((n) =>
      q(
        `request ${n} of a budget of one`,
        () => ask(limited.baseUrl, method, fill(path), { ...json, token: tokens.limitedJwt }),
        'limited',
      ),
    ),
  ];
}

const notMounted = (a: Answer) => a.status === 404 && (a.body as Json)?.message === 'Rota não encontrada';
const guardRefused = (a: Answer) =>
  a.status === 400 &&
  ((a.body as Json)?.errors ?? []).some((e: Json) => String(e.message).endsWith(INPUT_MESSAGES.control));

test.serial('every status an operation answers is documented for it, with its body', async (t) => {
  const problems: string[] = [];
  let asked = 0;
  const unmounted: string[] = [];
  for (const operation of operations()) {
    const { path, method, op } = operation;
    const documented = new Set(Object.keys(op.responses ?? {}));
    const where = `${method.toUpperCase()} ${path}`;
    const facts = new Map<string, Answer>();
    // a route this deployment does not mount (the API Pix PSP's callbacks without ACQUIRER=apipix): nothing to ask
    if (notMounted(await ask(app.baseUrl, method, fill(path), BODY_METHODS.has(method) ? { body: '{}' } : {}))) {
      unmounted.push(where);
      continue;
    }
    for (const question of questions(operation)) {
      const answer = await question.send();
      asked++;
      facts.set(question.name, answer);
      if (!documented.has(String(answer.status)))
        problems.push(`${where} answers ${answer.status} to ${question.name}; documented: ${[...documented]}`);
      else
        try {
          checkResponse(answer);
        } catch (err) {
          problems.push(`${where}, ${question.name}: ${(err as Error).message.split('\n')[0]}`);
        }
    }
    // What the answers reveal of the operation, and what it must therefore list whatever this run happened to see.
    const expect = (status: string, because: string) => {
      if (!documented.has(status)) problems.push(`${where} must document ${status}: ${because}`);
    };
    if (guardRefused(facts.get('a NUL in the query')!)) expect('400', 'it sits behind the input guard');
    if (path.includes('{') && guardRefused(facts.get('a NUL path parameter')!))
      expect('400', 'it has a path parameter the input guard reads');
    if (facts.get('no credential')!.status === 401) {
      expect('401', 'it takes a credential');
      expect('429', 'a client IP whose credentials failed too often is refused on every route that checks one');
      if (facts.get('a JWT and ids no one has')!.status !== 401) {
        expect('403', "it takes a merchant's credential, and a blocked merchant is refused on every such route");
        expect('429', "it counts against the merchant's budget");
      }
    }
    if ((facts.get('an API key')!.body as Json)?.message === 'Esta rota exige login com JWT')
      expect('403', 'it is JWT-only');
    if (BODY_METHODS.has(method) && facts.get('a body that is not JSON')!.status === 415)
      expect('415', 'it reads a JSON body');
  }
  t.log(`asked ${asked} questions; not mounted here: ${unmounted.join(', ') || 'none'}`);
  t.true(asked > 400, `asked ${asked} questions`);
  t.deepEqual(problems, []);
});
