// Every response a test gets from the app is checked against docs/openapi.yaml, so the document cannot drift from
// the code: the operation is found by method and path template, the status must be documented and a JSON body must
// match its schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadOpenApiDocument } from '../../src/platform/api-docs.ts';

type Json = Record<string, any>;

const doc = loadOpenApiDocument() as Json;
const DOC_ID = 'urn:pix-payments:openapi';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(doc, DOC_ID);

const escape = (segment: string) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
const at = (pointer: string): any =>
  pointer
    .split('/')
    .slice(1)
    .map((s) => decodeURIComponent(s).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<any>((node, key) => node?.[key], doc);

// Path templates, the literal ones first so /v1/webhooks/merchant/events wins over /v1/webhooks/merchant/{id}.
const TEMPLATES = Object.keys(doc.paths as Json)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`, 'i'),
  }))
  .sort((a, b) => a.params - b.params);

const validators = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) validators.set(pointer, (validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` })));
  return validate;
}

// The schemas that apply to a value at a pointer: $ref, allOf, the anyOf/oneOf branches and if/then/else it takes.
function branches(pointer: string, value: unknown): string[] {
  const node = at(pointer) as Json;
  if (typeof node !== 'object' || node === null) return [];
  const out = [pointer];
  if (typeof node.$ref === 'string') out.push(...branches(node.$ref.replace(/^[^#]*#/, ''), value));
  for (const [i] of (node.allOf ?? []).entries()) out.push(...branches(`${pointer}/allOf/${i}`, value));
  for (const keyword of ['anyOf', 'oneOf'])
    for (const [i] of (node[keyword] ?? []).entries())
      if (validatorAt(`${pointer}/${keyword}/${i}`)(value)) out.push(...branches(`${pointer}/${keyword}/${i}`, value));
  if (node.if) {
    const taken = validatorAt(`${pointer}/if`)(value) ? 'then' : 'else';
    if (node[taken]) out.push(...branches(`${pointer}/${taken}`, value));
  }
  return out;
}

// JSON Schema accepts properties a schema does not name; the document must name every field the app sends, so an
// object whose schemas list properties may carry no other (free-form objects, with no properties listed, may).
function undocumented(pointer: string, value: unknown, where: string): string[] {
  const schemas = branches(pointer, value).map((p) => ({ p, node: at(p) as Json }));
  if (Array.isArray(value)) {
    return schemas
      .filter(({ node }) => typeof node.items === 'object')
      .flatMap(({ p }) => value.flatMap((v, i) => undocumented(`${p}/items`, v, `${where}/${i}`)));
  }
  if (typeof value !== 'object' || value === null) return [];
  const listed = schemas.filter(({ node }) => node.properties);
  const open = listed.length === 0 || schemas.some(({ node }) => node.additionalProperties || node.patternProperties);
  const extra = open ? [] : Object.keys(value).filter((k) => !listed.some(({ node }) => k in node.properties));
  return [
    ...extra.map((k) => `${where}/${k} is not in the schema`),
    ...listed.flatMap(({ p, node }) =>
      Object.keys(node.properties)
        .filter((k) => k in value)
        .flatMap((k) => undocumented(`${p}/properties/${escape(k)}`, (value as Json)[k], `${where}/${k}`)),
    ),
  ];
}

// What is wrong with a value against the schema at a pointer of the document (ajv, then undocumented fields).
export function schemaErrorsAt(pointer: string, value: unknown): string[] {
  const validate = validatorAt(pointer);
  if (!validate(value))
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
  return [...new Set(undocumented(pointer, value, ''))];
}

// Routes the document does not list answer what notFoundRoute and errorHandler answer.
const UNKNOWN_ROUTE: Record<string, string> = {
  '404': '/components/schemas/Error',
  '500': '/components/schemas/InternalError',
};

export type CheckedResponse = {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  body: unknown;
};

// Throws, naming the operation and what differs, when the response is not what the document says.
export function checkResponse({ method, url, status, contentType, body }: CheckedResponse): void {
  const path = new URL(url, 'http://app').pathname.replace(/(.)\/$/, '$1');
  const lower = method.toLowerCase();
  const found = TEMPLATES.find(({ regex, template }) => regex.test(path) && lower in doc.paths[template]);
  const where = found ? `${method.toUpperCase()} ${found.template}` : `${method.toUpperCase()} ${path}`;
  const fail = (why: string) => {
    const shown = JSON.stringify(body)?.slice(0, 500);
    throw new Error(`docs/openapi.yaml disagrees with the app: ${where} answered ${status}: ${why}\nbody: ${shown}`);
  };
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const isJson = mediaType === 'application/json';

  let schemaPointer: string | undefined;
  if (!found) {
    if (!UNKNOWN_ROUTE[status]) fail('the route is not documented (only 404 and 500 are expected there)');
    schemaPointer = UNKNOWN_ROUTE[status];
    if (!isJson) fail(`content-type ${contentType} is not application/json`);
  } else {
    const responses = doc.paths[found.template][lower].responses as Json;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) fail(`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
    let pointer = `/paths/${escape(found.template)}/${lower}/responses/${key}`;
    while (typeof at(pointer).$ref === 'string') pointer = (at(pointer).$ref as string).slice(1);
    const content = at(pointer).content as Json | undefined;
    if (!content) {
      if (body !== '' && body !== undefined) fail('the document says no body');
      return;
    }
    if (!(mediaType in content)) fail(`content-type ${contentType} is not documented (${Object.keys(content)})`);
    if (isJson && content[mediaType].schema) schemaPointer = `${pointer}/content/${escape(mediaType)}/schema`;
  }
  if (!schemaPointer) return;
  const errors = schemaErrorsAt(schemaPointer, body);
  if (errors.length) fail(`the body does not match ${schemaPointer}:\n  ${errors.join('\n  ')}`);
}
