// The request bodies the PSP stub receives, checked against the Banco Central's own schemas: the API Pix 2.9.0
// document (bcb-api-pix-2.9.0.yaml beside this file, Apache 2.0, as published), so the client can never drift from
// the standard unnoticed. A stub route `PUT /v2/cob/:txid` is the standard's `put /cob/{txid}`; routes the standard
// lacks (Efí's envios and infrações, the token) are not checked.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

type Json = Record<string, any>;

// The document writes a few patterns as JavaScript literals ("/^\\d{11}$/"): they are read as the expressions they mean.
function unwrapPatterns(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(unwrapPatterns);
  if (typeof node !== 'object' || node === null) return;
  const o = node as Json;
  if (typeof o.pattern === 'string' && /^\/.*\/$/.test(o.pattern)) o.pattern = o.pattern.slice(1, -1);
  Object.values(o).forEach(unwrapPatterns);
}

const doc = parse(readFileSync(new URL('./bcb-api-pix-2.9.0.yaml', import.meta.url), 'utf8')) as Json;
unwrapPatterns(doc);
const DOC_ID = 'urn:bcb:api-pix:2.9.0';
// OpenAPI 3.0 schemas are JSON Schema draft 4/7 with a few keywords of their own (nullable, example): not strict.
const ajv = new Ajv({ strict: false, allErrors: true, discriminator: true });
addFormats.default(ajv);
ajv.addSchema(doc, DOC_ID);

const escape = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
const deref = (node: Json): Json =>
  typeof node?.$ref === 'string'
    ? deref(
        node.$ref
          .replace(/^#\//, '')
          .split('/')
          .reduce((n: Json, k: string) => n?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc),
      )
    : node;

const validators = new Map<string, ValidateFunction | null>();

// The validator of a stub route's request body (`METHOD /v2/path/:param`), null when the standard defines none.
function validatorOf(route: string): ValidateFunction | null {
  if (validators.has(route)) return validators.get(route)!;
  const [method, path] = route.split(' ');
  const standard = path.replace(/^\/v2/, '').replace(/:(\w+)/g, '{$1}');
  const body = doc.paths?.[standard]?.[method.toLowerCase()]?.requestBody;
  let validate: ValidateFunction | null = null;
  if (body) {
    const pointer = body.$ref
      ? `${body.$ref.replace(/^#/, '')}/content/application~1json/schema`
      : `/paths/${escape(standard)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`;
    if (deref(body).content?.['application/json']) validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
  }
  validators.set(route, validate);
  return validate;
}

// What is wrong with a body the stub received on a route, by the standard; [] when it conforms or is not checked.
export function bodyViolations(route: string, body: unknown): string[] {
  const validate = validatorOf(route);
  if (!validate || validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}`);
}
