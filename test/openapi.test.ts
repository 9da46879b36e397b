import test from 'ava';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { compileErrors, validate } from '@readme/openapi-parser';
import { AUTH_MESSAGES } from '../src/platform/errors.ts';
import { IDEMPOTENCY_CONFLICT } from '../src/platform/idempotency.ts';
import { PREREQUISITE_MESSAGES } from '../src/charges/charges.service.ts';
import { CHARGE_STATUSES } from '../src/charges/charge.entity.ts';
import { TRACKING_FIELDS } from '../src/charges/charges.validation.ts';
import { PIX_KEY_TYPES } from '../src/pix-keys/pix-key.entity.ts';
import { EVENT_CATALOG } from '../src/events/catalog.ts';

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
};

const methodsOf = (item: Json) => Object.keys(item).filter((k) => METHODS.includes(k)).sort();

function operations(): { path: string; method: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    methodsOf(item as Json).map((method) => ({ path, method, op: (item as Json)[method] as Json })));
}

// Follows a local "#/a/b" reference; undefined when it points nowhere.
function resolve(ref: string): any {
  return ref.slice(2).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<any>((node, key) => (node === undefined ? undefined : node[key]), doc);
}
const deref = (node: Json): Json => (typeof node.$ref === 'string' ? deref(resolve(node.$ref)) : node);

const VALUE_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);

function* walk(node: unknown, at: string): Generator<{ node: Json; at: string }> {
  if (Array.isArray(node)) { for (const [i, v] of node.entries()) yield* walk(v, `${at}/${i}`); return; }
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
  // the two routes the code adds are documented too
  t.deepEqual(methodsOf(doc.paths['/pix/qr/{txid}']), ['get']);
  t.deepEqual(methodsOf(doc.paths['/health']), ['get']);
});

test('credentials per route follow spec section 5 and the contract', (t) => {
  t.deepEqual(doc.security, [{ bearerJwt: [] }, { apiKey: [] }]);
  const schemes = doc.components.securitySchemes as Json;
  t.like(schemes.bearerJwt, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  t.like(schemes.apiKey, { type: 'http', scheme: 'bearer' });
  t.like(schemes.acquirerSignature, { type: 'apiKey', in: 'header', name: 'x-acquirer-signature' });
  for (const { path, method, op } of operations()) {
    const where = `${method.toUpperCase()} ${path}`;
    if (['/v1/auth/login', '/v1/auth/register', '/pix/qr/{txid}', '/health'].includes(path)) t.deepEqual(op.security, [], where);
    else if (path.startsWith('/v1/api-keys')) t.deepEqual(op.security, [{ bearerJwt: [] }], where);
    else if (path === '/v1/acquirer/notifications') t.deepEqual(op.security, [{ acquirerSignature: [] }], where);
    else t.is(op.security, undefined, `${where} uses the global JWT-or-API-key requirement`);
    if (op.security === undefined || op.security.length > 0) t.truthy(op.responses['401'], `${where} documents 401`);
  }
});

test('every operation has a unique operationId and every response carries x-request-id', (t) => {
  const ids = operations().map(({ op }) => op.operationId as string);
  t.is(new Set(ids).size, ids.length);
  for (const { path, method, op } of operations()) {
    if (path !== '/health') t.truthy(op.responses['500'], `${method} ${path} documents 500`);
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

  const unauthorized = deref(doc.components.responses.Unauthorized.content['application/json'].schema.allOf[1]);
  t.deepEqual(unauthorized.properties.message.enum,
    [AUTH_MESSAGES.missingHeader, AUTH_MESSAGES.invalidToken, AUTH_MESSAGES.invalidApiKey, AUTH_MESSAGES.inactiveApiKey]);

  t.deepEqual(schema('ChargeStatus').enum, [...CHARGE_STATUSES]);
  t.deepEqual(schema('PixKeyType').enum, [...PIX_KEY_TYPES]);
  t.deepEqual(schema('EventName').enum, EVENT_CATALOG.map((e) => e.event));
  t.deepEqual(enumOf(schema('EventDescriptor'), 'category'), [...new Set(EVENT_CATALOG.map((e) => e.category))]);
  t.deepEqual(Object.keys(schema('TrackingInput').properties), TRACKING_FIELDS);

  const charge = schema('ChargeCreateRequest').properties as Json;
  t.like(charge.amount, { type: 'integer', minimum: 1 });
  t.like(charge.description, { type: 'string', maxLength: 255 });
  t.like(charge.expiresIn, { minimum: 60, maximum: 604800, default: 86400 });
  const limit = deref(doc.components.parameters.Limit).schema as Json;
  t.like(limit, { minimum: 1, maximum: 100, default: 20 });
});

test('the spec resources are component schemas', (t) => {
  for (const name of ['User', 'ApiKeyCreated', 'ApiKey', 'Merchant', 'Balance', 'PixKey', 'Charge', 'ChargeListItem', 'CustomerInput',
    'Customer', 'TrackingInput', 'Tracking', 'Withdrawal', 'WebhookCreated', 'Webhook', 'WebhookLog', 'EventDescriptor', 'Error',
    'ValidationError', 'WebhookEvent', 'WebhookEventEnvelope']) {
    t.truthy(schema(name), name);
  }
  t.deepEqual(schema('WebhookEventEnvelope').required, ['id', 'event', 'createdAt', 'data']);
  t.deepEqual(schema('ApiKeyCreated').required, ['id', 'name', 'description', 'value', 'status', 'createdAt']);
  t.false('value' in schema('ApiKey').properties, 'a listed key never carries its value');
  t.false('imageBase64' in schema('ChargeListItem').properties, 'the charge list omits the image');
});

// The validator checks the document's structure, not the JSON Schemas inside it: catch typos and dangling references here.
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
      for (const name of node.required as string[]) t.true(name in node.properties, `${at}: required ${name} is declared`);
    }
  }
});
