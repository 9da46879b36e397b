// The events' payload schemas, from docs/openapi.yaml, for validators.
import { loadOpenApiDocument } from '../platform/api-docs.ts';
import { EVENT_CATALOG, type EventType } from './catalog.ts';

type Json = Record<string, unknown>;
export type EventSchema = { schema: Json; example: { id: string; event: string; createdAt: string; data: Json } };

const REF = '#/components/schemas/';
// OpenAPI-only keywords, meaningless to a JSON Schema validator.
const OPENAPI_ONLY = new Set(['discriminator', 'example', 'xml', 'externalDocs']);

// A copy of `node` with OpenAPI component references pointing into `$defs`, collecting the names it refers to.
function rewrite(node: unknown, refs: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, refs));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (OPENAPI_ONLY.has(key)) continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF)) {
      refs.add(value.slice(REF.length));
      out.$ref = `#/$defs/${value.slice(REF.length)}`;
    } else out[key] = rewrite(value, refs);
  }
  return out;
}

/**
 * The JSON Schema (2020-12) of each event's delivered body and its example, both taken from docs/openapi.yaml: its
 * `webhooks:` section has one entry per event whose request body is that event's schema (the same components the
 * API's responses use) and example. So the catalogue and the document cannot disagree; `npm test` validates every
 * example against its schema.
 */
export function eventSchemas(doc: Json = loadOpenApiDocument()): Map<EventType, EventSchema> {
  const components = (doc.components as { schemas: Record<string, unknown> }).schemas;
  const webhooks = doc.webhooks as Record<string, { post: { requestBody: { content: Record<string, Json> } } }>;
  const result = new Map<EventType, EventSchema>();
  for (const { event } of EVENT_CATALOG) {
    const entry = webhooks[event]?.post.requestBody.content['application/json'];
    if (!entry) throw new Error(`docs/openapi.yaml: no webhooks entry for ${event}`);
    const refs = new Set<string>();
    const root = rewrite(entry.schema, refs) as Json;
    const defs: Json = {};
    for (const name of refs) {
      if (!(name in components)) throw new Error(`docs/openapi.yaml: no component schema ${name}`);
      defs[name] ??= rewrite(components[name], refs); // adds the names it refers to: the loop visits them too
    }
    result.set(event, {
      schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: event,
        allOf: [root, { type: 'object', required: ['event'], properties: { event: { const: event } } }],
        $defs: defs,
      },
      example: entry.example as EventSchema['example'],
    });
  }
  return result;
}
