import test from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EVENT_CATALOG } from '../src/webhooks/catalog.ts';
import { eventSchemas } from '../src/webhooks/catalog-schemas.ts';
import { loadOpenApiDocument } from '../src/platform/api-docs.ts';
import { payloadOf } from '../src/webhooks/outbox.ts';

// The catalogue's JSON Schemas and examples (GET /v1/webhooks/merchant/events) are generated from docs/openapi.yaml's
// `webhooks:` section: each stands alone (a merchant validates with it, no OpenAPI tooling), compiles under a strict
// JSON Schema 2020-12 validator, and the example of each event is valid against it and against no other event's.
const schemas = eventSchemas();
const ajv = () => {
  // strict: an unknown keyword (an OpenAPI one left behind) fails; strictTypes only lints `pattern` without `type`
  const a = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
  addFormats.default(a);
  return a;
};

test('the OpenAPI document has one webhooks: entry per catalogue event', (t) => {
  const doc = loadOpenApiDocument() as { webhooks: Record<string, unknown> };
  for (const { event } of EVENT_CATALOG) t.truthy(doc.webhooks[event], event);
  t.is(schemas.size, EVENT_CATALOG.length);
});

test('every event example validates against its own schema and no other', (t) => {
  for (const [event, { schema, example }] of schemas) {
    const validate = ajv().compile(schema);
    t.true(validate(example), `${event}: ${JSON.stringify(validate.errors)}`);
    t.is(example.event, event);
    for (const [other, entry] of schemas) {
      if (other === event) continue;
      t.false(ajv().compile(entry.schema)(example), `${event}'s example passes ${other}'s schema`);
    }
  }
});

test('the schemas stand alone: every reference points into their own $defs', (t) => {
  for (const [event, { schema }] of schemas) {
    const refs = JSON.stringify(schema).match(/"\$ref":"[^"]+"/g) ?? [];
    t.true(refs.length > 0, event);
    for (const ref of refs) t.regex(ref, /^"\$ref":"#\/\$defs\/[A-Za-z]+"$/, event);
    t.false(JSON.stringify(schema).includes('discriminator'), 'no OpenAPI-only keyword');
  }
});

test('the schemas refuse a body that breaks them', (t) => {
  const { schema, example } = schemas.get('charge.paid')!;
  const validate = ajv().compile(schema);
  t.false(validate({ ...example, event: 'charge.refunded' }), 'another event name');
  t.false(validate({ ...example, data: { ...example.data, amount: '10.50' } }), 'an amount as text');
  const { id: _id, ...noId } = example;
  t.false(validate(noId), 'no id');
});

test('what the daemon delivers for an example validates too (payloadOf keeps every field)', (t) => {
  for (const [event, { schema, example }] of schemas) {
    const body = JSON.parse(
      payloadOf({
        id: example.id,
        merchant_id: 'm',
        type: event,
        data: example.data,
        created_at: new Date(example.createdAt),
      }),
    );
    t.true(ajv().compile(schema)(body), event);
  }
});
