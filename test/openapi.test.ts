import test from 'ava';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { compileErrors, validate } from '@readme/openapi-parser';
import { AUTH_MESSAGES } from '../src/platform/errors.ts';
import { IDEMPOTENCY_CONFLICT } from '../src/platform/idempotency.ts';
import { PREREQUISITE_MESSAGES } from '../src/charges/charges.create.ts';
import { CHARGE_STATUSES } from '../src/charges/charge.entity.ts';
import { TRACKING_FIELDS } from '../src/charges/charges.validation.ts';
import { type IPixKey } from '../src/pix-keys/pix-key.entity.ts';
import { PIX_KEY_TYPES } from '../src/pix/keys.ts';
import { pixKeyView } from '../src/pix-keys/pix-keys.service.ts';
import { EVENT_CATALOG } from '../src/webhooks/catalog.ts';
import { InsufficientFundsError } from '../src/ledger/ledger.service.ts';
import { WITHDRAWAL_STATUSES, type IWithdrawal } from '../src/withdrawals/withdrawal.entity.ts';
import { creationView, withdrawalView } from '../src/withdrawals/withdrawals.view.ts';
import { chargeView } from '../src/charges/charges.view.ts';
import { refundView } from '../src/refunds/refunds.view.ts';
import { buildDynamicPix } from '../src/pix/brcode.ts';
import { payloadOf } from '../src/webhooks/outbox.ts';
import { schemaErrorsAt } from './support/openapi-check.ts';

// docs/openapi.yaml is the project's record of the HTTP interface: it must be a valid OpenAPI 3.1 document, cover every
// endpoint of the spec (section 4) and of the contract, and agree with the code on the fixed values it documents.

type Json = Record<string, any>;

const text = readFileSync(new URL('../docs/openapi.yaml', import.meta.url), 'utf8');
const doc: Json = parse(text); // the yaml package refuses duplicate keys
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// Spec section 4 (4.1-4.14) plus the contract's endpoints, OpenAPI path templates -> methods.
const EXPECTED: Record<string, string[]> = {
  '/v1/auth/login': ['post'],
  '/v1/auth/register': ['post'],
  '/v1/api-keys': ['get', 'post'],
  '/v1/api-keys/{id}': ['delete'],
  '/v1/charges': ['get', 'post'],
  '/v1/merchants/me/withdrawals': ['get', 'post'],
  '/v1/webhooks/merchant': ['get', 'post'],
  '/v1/webhooks/merchant/{id}': ['delete', 'patch'],
  '/v1/webhooks/merchant/events': ['get'],
  // contract
  '/v1/merchants/me': ['get'],
  '/v1/merchants/me/balance': ['get'],
  '/v1/merchants/me/pix-keys': ['get', 'post'],
  '/v1/merchants/me/pix-keys/{id}': ['delete'],
  '/v1/charges/{id}': ['get'],
  '/v1/charges/{id}/refund': ['post'],
  '/v1/sandbox/charges/{id}/pay': ['post'],
  '/v1/acquirer/notifications': ['post'],
  '/v1/events': ['get'],
  '/v1/events/stream': ['get'],
  '/v1/events/{id}': ['get'],
};

const methodsOf = (item: Json) =>
  Object.keys(item)
    .filter((k) => METHODS.includes(k))
    .sort();

function operations(): { path: string; method: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    methodsOf(item as Json).map((method) => ({ path, method, op: (item as Json)[method] as Json })),
  );
}

// Follows a local "#/a/b" reference; undefined when it points nowhere.
function resolve(ref: string): any {
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<any>((node, key) => (node === undefined ? undefined : node[key]), doc);
}
const deref = (node: Json): Json => (typeof node.$ref === 'string' ? deref(resolve(node.$ref)) : node);

const VALUE_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);

function* walk(node: unknown, at: string): Generator<{ node: Json; at: string }> {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) yield* walk(v, `${at}/${i}`);
    return;
  }
  if (!node || typeof node !== 'object') return;
  yield { node: node as Json, at };
  for (const [k, v] of Object.entries(node)) {
    if (!VALUE_KEYWORDS.has(k)) yield* walk(v, `${at}/${k}`); // examples and enums are values, not schemas
  }
}

const schema = (name: string): Json => doc.components.schemas[name];
const enumOf = (s: Json, prop: string): unknown[] => deref(s.properties[prop]).enum;

test('docs/openapi.yaml parses and is a valid OpenAPI 3.1 document', async (t) => {
  t.regex(String(doc.openapi), /^3\.1\.\d+$/);
  t.is(String(doc.info.version), '1');
  const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
  t.true(result.valid, result.valid ? '' : compileErrors(result));
  t.deepEqual(result.warnings, []);
});

test('every path of the spec section 4 and of the contract is present with the right methods', (t) => {
  for (const [path, methods] of Object.entries(EXPECTED)) {
    const item = doc.paths[path] as Json | undefined;
    t.truthy(item, `${path} is missing`);
    if (item) t.deepEqual(methodsOf(item), [...methods].sort(), path);
  }
  // the routes the code adds are documented too
  t.deepEqual(methodsOf(doc.paths['/pix/qr/{txid}']), ['get']);
  t.deepEqual(methodsOf(doc.paths['/health']), ['get']);
  t.deepEqual(methodsOf(doc.paths['/openapi.json']), ['get']);
  t.deepEqual(methodsOf(doc.paths['/docs']), ['get']);
  t.deepEqual(methodsOf(doc.paths['/portal']), ['get']);
  t.deepEqual(methodsOf(doc.paths['/v1/merchants/me/withdrawals/{id}']), ['get']);
});

test('every documented operation is implemented: nothing is left "documented from the contract" or marked', (t) => {
  t.false(text.includes('documented-from-contract'));
  t.deepEqual(
    [...walk(doc, '#')].filter(({ node }) => 'x-status' in node).map(({ at }) => at),
    [],
  );
  for (const path of ['/v1/infractions', '/v1/infractions/{id}', '/v1/infractions/{id}/defense'])
    t.truthy(doc.paths[path], path);
});

test('credentials per route follow spec section 5 and the contract', (t) => {
  t.deepEqual(doc.security, [{ bearerJwt: [] }, { apiKey: [] }]);
  const schemes = doc.components.securitySchemes as Json;
  t.like(schemes.bearerJwt, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  t.like(schemes.apiKey, { type: 'http', scheme: 'bearer' });
  t.like(schemes.acquirerSignature, { type: 'apiKey', in: 'header', name: 'x-acquirer-signature' });
  for (const { path, method, op } of operations()) {
    const where = `${method.toUpperCase()} ${path}`;
    const pub = [
      '/v1/auth/login',
      '/v1/auth/register',
      '/pix/qr/{txid}',
      '/pix/rec/{recId}',
      '/health',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/pay/{id}',
      '/pay/{id}/status',
      '/portal',
      '/v1/acquirer/apipix/{token}',
      '/v1/acquirer/apipix/{token}/pix',
      '/v1/acquirer/apipix/{token}/rec',
      '/v1/acquirer/apipix/{token}/cobr',
    ];
    if (pub.includes(path)) t.deepEqual(op.security, [], where);
    else if (path === '/metrics') t.deepEqual(op.security, [{}, { metricsToken: [] }], where);
    else if (path.startsWith('/v1/api-keys') || path === '/v1/sandbox/onboarding')
      t.deepEqual(op.security, [{ bearerJwt: [] }], where); // JWT only
    else if (path === '/v1/acquirer/notifications') t.deepEqual(op.security, [{ acquirerSignature: [] }], where);
    else t.is(op.security, undefined, `${where} uses the global JWT-or-API-key requirement`);
    if (op.security === undefined || op.security.length > 0) t.truthy(op.responses['401'], `${where} documents 401`);
  }
});

test('every operation has a unique operationId and every response carries x-request-id', (t) => {
  const ids = operations().map(({ op }) => op.operationId as string);
  t.is(new Set(ids).size, ids.length);
  for (const { path, method, op } of operations()) {
    if (path !== '/health' && path !== '/healthz') t.truthy(op.responses['500'], `${method} ${path} documents 500`);
    for (const [status, response] of Object.entries(op.responses as Json)) {
      t.truthy(deref(response as Json).headers?.['x-request-id'], `${method} ${path} ${status} has x-request-id`);
    }
  }
});

test('idempotent creations document x-idempotency-key and idempotent-replayed', (t) => {
  for (const path of ['/v1/charges', '/v1/merchants/me/withdrawals']) {
    const op = doc.paths[path].post as Json;
    const key = (op.parameters as Json[]).map(deref).find((p) => p.name === 'x-idempotency-key');
    t.like(key, { in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 64 } }, path);
    t.truthy(op.responses['201'], path);
    t.truthy(deref(op.responses['200']).headers['idempotent-replayed'], path);
    t.truthy(op.responses['409'], path);
  }
});

test('the fixed messages and enums agree with the code', (t) => {
  for (const message of Object.values(AUTH_MESSAGES)) t.true(text.includes(message), message);
  for (const message of Object.values(PREREQUISITE_MESSAGES)) t.true(text.includes(message), message);
  t.true(text.includes(Object.values(PREREQUISITE_MESSAGES).join('; ')), 'the 403 joins every missing prerequisite');
  t.true(text.includes(IDEMPOTENCY_CONFLICT));
  t.true(text.includes('message: Saldo insuficiente\n'));
  t.false(text.includes('Saldo insuficiente para estornar'), "the refund refusal is the ledger's message now");

  const unauthorized = deref(doc.components.responses.Unauthorized.content['application/json'].schema.allOf[1]);
  t.deepEqual(unauthorized.properties.message.enum, [
    AUTH_MESSAGES.missingHeader,
    AUTH_MESSAGES.invalidToken,
    AUTH_MESSAGES.invalidApiKey,
    AUTH_MESSAGES.inactiveApiKey,
  ]);

  t.deepEqual(schema('ChargeStatus').enum, [...CHARGE_STATUSES]);
  t.deepEqual(schema('PixKeyType').enum, [...PIX_KEY_TYPES]);
  t.deepEqual(
    schema('EventName').enum,
    EVENT_CATALOG.map((e) => e.event),
  );
  t.deepEqual(enumOf(schema('EventDescriptor'), 'category'), [...new Set(EVENT_CATALOG.map((e) => e.category))]);
  t.deepEqual(Object.keys(schema('TrackingInput').properties), TRACKING_FIELDS);

  const charge = schema('ChargeCreateRequest').properties as Json;
  t.like(charge.amount, { type: 'integer', minimum: 1 });
  t.like(charge.description, { type: 'string', maxLength: 255 });
  t.like(charge.expiresIn, { minimum: 60, maximum: 604800, default: 86400 });
  const limit = deref(doc.components.parameters.Limit).schema as Json;
  t.like(limit, { minimum: 1, maximum: 100, default: 20 });
  t.like(deref(doc.components.parameters.Page).schema, {
    type: 'integer',
    minimum: 1,
    maximum: 2147483647,
    default: 1,
  });
});

const responseSchema = (op: Json, status: string): Json =>
  deref(deref(op.responses[status]).content['application/json'].schema);
const messagesOf = (op: Json, status: string): unknown[] => {
  const message = deref(responseSchema(op, status).allOf[1]).properties.message as Json;
  return 'const' in message ? [message.const] : (message.enum ?? message.anyOf.flatMap((m: Json) => m.enum ?? []));
};

test('the withdrawal endpoints document what src/withdrawals answers', (t) => {
  const insufficient = new InsufficientFundsError().message;
  const create = doc.paths['/v1/merchants/me/withdrawals'].post as Json;
  t.deepEqual(Object.keys(create.responses).sort(), [
    '200',
    '201',
    '400',
    '401',
    '403',
    '404',
    '409',
    '413',
    '415',
    '422',
    '429',
    '500',
  ]);
  t.is(deref(create.requestBody.content['application/json'].schema), schema('WithdrawalCreateRequest'));
  for (const status of ['201', '200'])
    t.is(responseSchema(create, status).properties.withdrawal.$ref, '#/components/schemas/Withdrawal');
  t.deepEqual(messagesOf(create, '422'), [insufficient]);
  t.deepEqual(messagesOf(create, '404'), [AUTH_MESSAGES.merchantNotFound]);
  t.deepEqual(messagesOf(create, '409'), [IDEMPOTENCY_CONFLICT]);
  const input = schema('WithdrawalCreateRequest');
  t.deepEqual(input.required, ['amount', 'pixKey', 'pixKeyType']);
  t.like(input.properties.amount, { type: 'integer', minimum: 1, maximum: 2147483647 });
  t.like(input.properties.description, { type: ['string', 'null'], maxLength: 255 });
  t.is(input.properties.pixKeyType.$ref, '#/components/schemas/PixKeyType');

  const list = doc.paths['/v1/merchants/me/withdrawals'].get as Json;
  t.deepEqual(
    (list.parameters as Json[])
      .map(deref)
      .filter((p) => p.in === 'query')
      .map((p) => p.name),
    ['page', 'limit'],
  );
  t.deepEqual(responseSchema(list, '200'), schema('WithdrawalList'));
  t.deepEqual(schema('WithdrawalList').required, ['page', 'limit', 'total', 'withdrawals']);
  t.deepEqual(messagesOf(list, '404'), ['Merchant não encontrado']); // spec 4.9, exact text
  t.truthy(list.responses['400']);

  const one = doc.paths['/v1/merchants/me/withdrawals/{id}'].get as Json;
  t.like(deref(one.parameters[1]), { name: 'id', in: 'path', required: true });
  t.is(responseSchema(one, '200').properties.withdrawal.$ref, '#/components/schemas/Withdrawal');
  t.deepEqual(messagesOf(one, '404'), ['Saque não encontrado', AUTH_MESSAGES.merchantNotFound]);

  t.deepEqual(schema('WithdrawalStatus').enum, [...WITHDRAWAL_STATUSES]);
  // a refund refused for lack of balance answers the ledger's message, like a withdrawal
  t.true(messagesOf(doc.paths['/v1/charges/{id}/refund'].post, '422').includes(insufficient));
});

test('the spec resources are component schemas', (t) => {
  for (const name of [
    'User',
    'ApiKeyCreated',
    'ApiKey',
    'Merchant',
    'Balance',
    'PixKey',
    'Charge',
    'ChargeListItem',
    'CustomerInput',
    'Customer',
    'TrackingInput',
    'Tracking',
    'Withdrawal',
    'WebhookCreated',
    'Webhook',
    'WebhookLog',
    'EventDescriptor',
    'Error',
    'ValidationError',
    'WebhookEvent',
    'WebhookEventEnvelope',
  ]) {
    t.truthy(schema(name), name);
  }
  t.deepEqual(schema('WebhookEventEnvelope').required, ['id', 'event', 'createdAt', 'data']);
  t.deepEqual(schema('ApiKeyCreated').required, ['id', 'name', 'description', 'value', 'status', 'createdAt']);
  t.false('value' in schema('ApiKey').properties, 'a listed key never carries its value');
  t.false('imageBase64' in schema('ChargeListItem').properties, 'the charge list omits the image');
});

// The validator checks the document's structure, not the JSON Schemas inside it: catch typos and dangling references
// here.
test('schemas are well formed: known types, resolvable references, required properties declared', (t) => {
  const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
  for (const { node, at } of walk(doc, '#')) {
    if (typeof node.$ref === 'string') t.not(resolve(node.$ref), undefined, `${at}: ${node.$ref} resolves`);
    const inSchema = at.includes('/schema') || at.startsWith('#/components/schemas');
    if (!inSchema || at.endsWith('/properties')) continue; // a property may be called "type"
    if ('type' in node) {
      for (const type of [node.type].flat()) t.true(TYPES.has(type as string), `${at}: type ${String(type)}`);
    }
    if (Array.isArray(node.required) && node.properties && !node.allOf) {
      for (const name of node.required as string[])
        t.true(name in node.properties, `${at}: required ${name} is declared`);
    }
  }
});

// A small JSON Schema check, enough for the keywords this document uses (an unknown keyword fails loudly rather than
// passing silently), so the test can hold the code's own output against the documented schemas.
const ANNOTATIONS = new Set([
  'description',
  'example',
  'examples',
  'default',
  'discriminator',
  'title',
  'then',
  'else',
]);
const FORMATS: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: Number.isInteger,
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: Array.isArray,
  object: isObject,
};

function schemaErrors(node: Json, value: unknown, at = '$'): string[] {
  const errors: string[] = [];
  const fail = (why: string) => errors.push(`${at}: ${why}`);
  for (const [keyword, arg] of Object.entries(node) as [string, any][]) {
    if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) continue;
    switch (keyword) {
      case '$ref':
        errors.push(...schemaErrors(resolve(arg), value, at));
        break;
      case 'type':
        if (![arg].flat().some((type: string) => TYPE_CHECKS[type](value)))
          fail(`${JSON.stringify(value)} is not ${String(arg)}`);
        break;
      case 'enum':
        if (!(arg as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value)))
          fail(`${JSON.stringify(value)} not in ${JSON.stringify(arg)}`);
        break;
      case 'const':
        if (JSON.stringify(arg) !== JSON.stringify(value))
          fail(`${JSON.stringify(value)} is not ${JSON.stringify(arg)}`);
        break;
      case 'format':
        if (typeof value === 'string' && FORMATS[arg] && !FORMATS[arg].test(value)) fail(`${value} is not a ${arg}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(arg, 'u').test(value)) fail(`${value} does not match ${arg}`);
        break;
      case 'minLength':
        if (typeof value === 'string' && [...value].length < arg) fail(`shorter than ${arg}`);
        break;
      case 'maxLength':
        if (typeof value === 'string' && [...value].length > arg) fail(`longer than ${arg}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && value < arg) fail(`below ${arg}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && value > arg) fail(`above ${arg}`);
        break;
      case 'minItems':
        if (Array.isArray(value) && value.length < arg) fail(`fewer than ${arg} items`);
        break;
      case 'maxItems':
        if (Array.isArray(value) && value.length > arg) fail(`more than ${arg} items`);
        break;
      case 'items':
        if (Array.isArray(value)) value.forEach((v, i) => errors.push(...schemaErrors(arg, v, `${at}[${i}]`)));
        break;
      case 'required':
        if (isObject(value)) for (const name of arg as string[]) if (!(name in value)) fail(`${name} is missing`);
        break;
      case 'properties':
        if (isObject(value))
          for (const [name, sub] of Object.entries(arg as Json))
            if (name in value) errors.push(...schemaErrors(sub, value[name], `${at}.${name}`));
        break;
      case 'additionalProperties':
        if (!isObject(value)) break;
        for (const name of Object.keys(value).filter((k) => !(k in (node.properties ?? {})))) {
          if (arg === false) fail(`${name} is not documented`);
          else errors.push(...schemaErrors(arg, value[name], `${at}.${name}`));
        }
        break;
      case 'allOf':
        for (const sub of arg as Json[]) errors.push(...schemaErrors(sub, value, at));
        break;
      case 'anyOf':
        if (!(arg as Json[]).some((sub) => schemaErrors(sub, value, at).length === 0)) fail('matches none of anyOf');
        break;
      case 'oneOf': {
        const matching = (arg as Json[]).filter((sub) => schemaErrors(sub, value, at).length === 0).length;
        if (matching !== 1) fail(`matches ${matching} of oneOf, not exactly one`);
        break;
      }
      case 'if': {
        const branch = schemaErrors(arg, value, at).length === 0 ? node.then : node.else;
        if (branch) errors.push(...schemaErrors(branch, value, at));
        break;
      }
      default:
        fail(`keyword ${keyword} is not supported by this test's checker`);
    }
  }
  return errors;
}
const conforms = (
  t: { deepEqual: (a: unknown, b: unknown, m?: string) => void },
  name: string,
  value: unknown,
  what: string,
) => t.deepEqual(schemaErrors(schema(name), JSON.parse(JSON.stringify(value))), [], what);

// The delivered body, built by the daemon's own serialiser.
const delivered = (type: string, data: unknown) =>
  JSON.parse(
    payloadOf({
      id: '01a20122-76f4-70f1-87d0-2060ce06a9c2',
      merchant_id: '019a8f3b-0000-7000-8000-000000000001',
      type,
      data,
      created_at: new Date('2026-11-22T12:30:06.120Z'),
    }),
  ) as Json;

const AT = new Date('2026-11-22T12:30:00.000Z');
const LATER = new Date('2026-11-22T12:30:01.000Z');

test('the schema checker itself refuses what it should', (t) => {
  t.not(
    schemaErrors(schema('PixKey'), { id: 'x', type: 'EMAIL', key: 'a@b.c', status: 'ACTIVE', createdAt: 'now' }).length,
    0,
  );
  t.not(
    schemaErrors(schema('PixKey'), {
      id: '019a8f3b-7e21-7a4c-9d3e-2b1c0a9f8e7d',
      type: 'CPF',
      key: '123',
      status: 'ACTIVE',
      createdAt: AT.toISOString(),
    }).length,
    0,
  );
  t.not(schemaErrors(schema('Withdrawal'), { id: '019a8f3b-7e21-7a4c-9d3e-2b1c0a9f8e7d' }).length, 0);
  t.not(
    schemaErrors(schema('WebhookEvent'), {
      id: '019a8f3b-7e21-7a4c-9d3e-2b1c0a9f8e7d',
      event: 'charge.created',
      createdAt: AT.toISOString(),
      data: {},
    }).length,
    0,
  );
});

test('pixkey.updated data is the PIX key exactly as the API returns it (ACTIVE on creation, INACTIVE on deletion)', (t) => {
  const data = schema('PixKeyEvent').allOf[1].properties.data as Json;
  t.deepEqual(data, { $ref: '#/components/schemas/PixKey' });
  const key = {
    id: '019a8f3b-7e21-7a4c-9d3e-2b1c0a9f8e7d',
    type: 'EMAIL',
    key: 'loja@example.com',
    status: 'ACTIVE',
    createdAt: AT,
  } as unknown as IPixKey;
  const view = pixKeyView(key);
  t.deepEqual(
    Object.keys(view),
    schema('PixKey').required,
    "the documented fields are exactly the view's, in its order",
  );
  for (const status of ['ACTIVE', 'INACTIVE'] as const) {
    const body = delivered('pixkey.updated', pixKeyView({ ...key, status } as IPixKey));
    conforms(t, 'PixKeyEvent', body, status);
    conforms(t, 'WebhookEvent', body, `${status} as a delivered event`);
  }
  // the old { action, pixKey } shape is no longer what the document describes
  t.not(
    schemaErrors(schema('WebhookEvent'), delivered('pixkey.updated', { action: 'created', pixKey: view })).length,
    0,
  );
  conforms(t, 'PixKeyEvent', schema('PixKeyEvent').example, 'the example');
});

test('withdrawals as src/withdrawals returns them (creation, replay, current state, events) fit the Withdrawal schema', (t) => {
  const completed = {
    id: '019aa7c2-5b1e-7c3a-9d2f-3e4b5a6c7d8e',
    amount: 15000,
    description: 'Saque semanal',
    status: 'COMPLETED',
    batchId: 'sbx-batch-0123456789abcdef',
    pixKey: 'loja@example.com',
    pixKeyType: 'EMAIL',
    failureReason: null,
    createdAt: AT,
    updatedAt: LATER,
    completedAt: LATER,
    failedAt: null,
    returnedAt: LATER,
  } as unknown as IWithdrawal;
  const failed = {
    ...completed,
    status: 'FAILED',
    batchId: null,
    description: null,
    failureReason: 'Chave PIX de destino recusada (sandbox)',
    completedAt: null,
    failedAt: LATER,
    returnedAt: null,
  } as unknown as IWithdrawal;
  t.deepEqual(
    Object.keys(withdrawalView(completed)),
    schema('Withdrawal').required,
    "the documented fields are exactly the view's, in its order",
  );
  const replay = creationView(completed);
  t.like(replay, { status: 'PROCESSING', batchId: null, completedAt: null, returnedAt: null });
  conforms(t, 'WithdrawalEnvelope', { withdrawal: replay }, 'the creation body (and its replay)');
  for (const w of [completed, failed])
    conforms(t, 'WithdrawalEnvelope', { withdrawal: withdrawalView(w) }, `${w.status} by id`);
  conforms(
    t,
    'WithdrawalList',
    { page: 1, limit: 20, total: 2, withdrawals: [withdrawalView(completed), withdrawalView(failed)] },
    'a page',
  );
  for (const event of ['withdraw.completed', 'withdraw.failed', 'withdraw.refunded']) {
    conforms(
      t,
      'WebhookEvent',
      delivered(event, withdrawalView(event === 'withdraw.failed' ? failed : completed)),
      event,
    );
  }
  const example = doc.paths['/v1/merchants/me/withdrawals'].post.responses['201'].content['application/json'].example;
  conforms(t, 'WithdrawalEnvelope', example, 'the 201 example');
});

test('charges as charge.view.ts returns them fit Charge, ChargeWithTracking (refund, charge.* events) and ChargeListItem', (t) => {
  const txid = '019a8f3c5e7b7d2a9c4e1f6b8a3d5c72';
  const charge = {
    id: '019a8f3c-5e7b-7d2a-9c4e-1f6b8a3d5c72',
    txid,
    amount: 1050,
    fee: 10,
    status: 'PAID' as const,
    description: 'Pedido 1',
    expiresIn: 86400,
    qrCode: buildDynamicPix({
      location: `localhost:3000/pix/qr/${txid}`,
      amountCents: 1050,
      merchantName: 'Padaria São João',
      merchantCity: 'SAO PAULO',
    }),
    createdAt: AT,
    expiresAt: new Date(AT.getTime() + 86400_000),
    tracking: { utm_source: 'instagram' },
    endToEndId: 'E00000000202611221230aB3dE5fG7hJ',
    paidAt: LATER,
    canceledAt: null,
    refundedAt: null,
  };
  const customer = { id: '019a8f3c-5e70-7b11-8a2b-3c4d5e6f7a8b', name: 'Maria Silva', document: '52998224725' };
  const publicBaseUrl = 'http://localhost:3000';
  const full = chargeView(charge, customer, { publicBaseUrl, image: true, tracking: true });
  for (const field of [
    'fee',
    'netAmount',
    'description',
    'createdAt',
    'expiresAt',
    'paidAt',
    'canceledAt',
    'refundedAt',
    'endToEndId',
    'paymentUrl',
  ]) {
    t.true(field in full, field);
    t.true(schema('ChargeListItem').required.includes(field), `${field} is documented on every charge`);
  }
  conforms(t, 'Charge', full, 'create/get');
  conforms(
    t,
    'Charge',
    chargeView({ ...charge, status: 'PENDING', endToEndId: null, paidAt: null }, null, {
      publicBaseUrl,
      image: true,
      tracking: true,
    }),
    'a replayed creation',
  );
  const withTracking = chargeView({ ...charge, status: 'REFUNDED', refundedAt: LATER }, customer, {
    publicBaseUrl,
    tracking: true,
  });
  t.false('imageBase64' in withTracking);
  conforms(t, 'ChargeWithTracking', withTracking, 'the refund response');
  const refund = refundView({
    id: '019a8f3c-6a00-7b11-8a2b-3c4d5e6f7a8b',
    amount: 400,
    reason: 'Produto devolvido',
    status: 'COMPLETED',
    failure_reason: null,
    created_at: LATER.toISOString(),
    completed_at: LATER.toISOString(),
    failed_at: null,
    split_shares: [{ merchantId: '019a8f3c-6a00-7b11-8a2b-3c4d5e6f7a8c', amount: 120 }],
  });
  const partly = {
    ...chargeView({ ...charge, refundedAmount: 400 }, customer, { publicBaseUrl, tracking: true }),
    refund,
  };
  for (const [event, data] of [
    ['charge.paid', chargeView(charge, customer, { publicBaseUrl, tracking: true })],
    ['charge.refunded', partly], // every completed refund, the charge still PAID until it is all
    ['charge.refunded', { ...withTracking, refund: null }], // an accepted MED infraction
  ] as const) {
    const body = delivered(event, data);
    t.true('tracking' in body.data, `${event} data carries tracking`);
    conforms(t, 'WebhookEvent', body, event);
  }
  t.not(
    schemaErrors(schema('WebhookEvent'), delivered('charge.refunded', chargeView(charge, customer, { publicBaseUrl })))
      .length,
    0,
  );
  const item = chargeView(charge, null, { publicBaseUrl });
  t.deepEqual(
    Object.keys(item).sort(),
    Object.keys(schema('ChargeListItem').properties).sort(),
    'a listed charge has exactly the documented fields',
  );
  conforms(t, 'ChargeList', { page: 1, limit: 20, total: 1, charges: [item] }, 'the listing');
});

// Every node of the document with its JSON pointer (keys escaped for a URI fragment), values of examples skipped.
function* pointers(node: unknown, at: string): Generator<{ node: Json; at: string }> {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) yield* pointers(v, `${at}/${i}`);
    return;
  }
  if (!isObject(node)) return;
  yield { node, at };
  for (const [k, v] of Object.entries(node))
    if (!VALUE_KEYWORDS.has(k))
      yield* pointers(v, `${at}/${encodeURIComponent(k.replaceAll('~', '~0').replaceAll('/', '~1'))}`);
}

test('every example in the document is valid against its schema, with no undocumented field', (t) => {
  let checked = 0;
  const wrong: string[] = [];
  for (const { node, at } of pointers(doc, '')) {
    // a media type or a parameter carries its schema beside the example; a schema is its own
    const schemaAt = 'schema' in node ? `${at}/schema` : at;
    const values: [string, unknown][] = [];
    if ('example' in node) values.push(['example', node.example]);
    if (Array.isArray(node.examples))
      node.examples.forEach((v: unknown, i: number) => values.push([`examples/${i}`, v]));
    else if (isObject(node.examples))
      for (const [name, ex] of Object.entries(node.examples))
        values.push([`examples/${name}`, deref(ex as Json).value]);
    for (const [where, value] of values) {
      checked++;
      wrong.push(...schemaErrorsAt(schemaAt, value).map((e) => `${at}/${where}: ${e}`));
    }
  }
  t.deepEqual(wrong, []);
  t.true(checked > 100, `${checked} examples checked`);
});
