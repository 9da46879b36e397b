// The PSP stub checks every request body it receives against the Banco Central's API Pix 2.9.0 document: the request
// body schema of the standard's operation for that method and path (`/v2` is the standard's server base). Routes the
// standard lacks (the token, Efí's envios and infrações) are not checked here. ajv, draft-07 (OpenAPI 3.0's dialect);
// OpenAPI-only keywords (`example`, `readOnly`...) are ignored. The document is kept beside this file, unmodified
// (bcb-api-pix-2.9.0.yaml, the BCB's, Apache License 2.0 as its `info.license` says), so the tests need nothing
// outside the repository; BCB_API_PIX_YAML points at another copy.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import type { Violacao } from '../../../src/acquirer/apipix/types.ts';

type Json = Record<string, any>;

const SPEC = process.env.BCB_API_PIX_YAML ?? fileURLToPath(new URL('bcb-api-pix-2.9.0.yaml', import.meta.url));
const DOC_ID = 'urn:bcb:api-pix-2.9.0';

// Patterns written as JavaScript regex literals ("/^\\d{11}$/", CPF and CNPJ): as JSON Schema they would demand the
// slashes themselves, so no CPF could ever be valid. The regex inside is what the standard means.
function unwrapPatterns(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(unwrapPatterns);
  if (typeof node !== 'object' || node === null) return;
  const o = node as Json;
  if (typeof o.pattern === 'string') o.pattern = o.pattern.replace(/^\/(.*)\/$/, '$1');
  Object.values(o).forEach(unwrapPatterns);
}

function load(): Json {
  const doc = parse(readFileSync(SPEC, 'utf8')) as Json;
  // Two evident defects of the standard's document, corrected (each would refuse every body of its kind):
  // - CPF and CNPJ patterns written as regex literals (unwrapPatterns);
  // - CobVValor.desconto's oneOf lists an object whose only property (descontoDataFixa) is optional, so a desconto
  //   by valorPerc (modalidades 3 to 6) matched both branches: the first branch must require its list.
  // Where the document contradicts itself, its examples and text win (the contract, "API Pix"):
  // - RecBase requires idRec and retentativa, but the PSP makes idRec and the policy travels as politicaRetentativa
  //   (RecConfiguracao; recBody1/recBody2 send neither);
  // - SolicRecBase requires `pagador`, a property it does not define (solicRecBody1 has none).
  unwrapPatterns(doc);
  const schemas = doc.components.schemas;
  schemas.RecBase.required = ['calendario', 'vinculo'];
  schemas.SolicRecBase.required = ['calendario', 'idRec', 'destinatario'];
  const desconto = doc.components.schemas.CobVValor.properties.desconto;
  desconto.oneOf[0].required = ['descontoDataFixa'];
  return doc;
}

let compiled: { ajv: Ajv; doc: Json } | undefined;
const validators = new Map<string, ValidateFunction | null>();

// The validator of the request body of `method` on the standard's `path` template ("/cobv/{txid}"); null if none.
function validatorFor(method: string, path: string): ValidateFunction | null {
  const key = `${method} ${path}`;
  if (validators.has(key)) return validators.get(key)!;
  if (!compiled) {
    const doc = load();
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, DOC_ID);
    compiled = { ajv, doc };
  }
  const { ajv, doc } = compiled;
  const at = (ref: string): Json | undefined =>
    ref
      .slice(2)
      .split('/')
      .reduce<Json | undefined>((node, k) => node?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
  let body = doc.paths?.[path]?.[method.toLowerCase()]?.requestBody as Json | undefined;
  if (typeof body?.$ref === 'string') body = at(body.$ref);
  const schema = body?.content?.['application/json']?.schema as Json | undefined;
  const validate = schema ? ajv.compile(schema.$ref ? { $ref: `${DOC_ID}${schema.$ref}` } : schema) : null;
  validators.set(key, validate);
  return validate;
}

// The standard's path template of a stub route ("/v2/cobv/:txid" -> "/cobv/{txid}"); null outside `/v2`.
const standardPath = (route: string) => (route.startsWith('/v2/') ? route.slice(3).replace(/:(\w+)/g, '{$1}') : null);

/**
 * Compiles the validators of these routes now (the document's parse and compile take a few hundred milliseconds, and
 * would otherwise block the process, client and stub alike, in the middle of a test's first call).
 */
export function compileBcbValidators(routes: { method: string; route: string }[]): void {
  for (const { method, route } of routes) {
    const path = standardPath(route);
    if (path && method !== 'GET') validatorFor(method, path);
  }
}

/**
 * What is wrong with a request body by the standard, as the `violacoes` of a problem+json (empty: nothing). `route` is
 * the stub's pattern ("/v2/cobv/:txid"); routes outside `/v2` or absent from the standard are not checked.
 */
export function bcbViolations(method: string, route: string, body: unknown): Violacao[] {
  const path = standardPath(route);
  const validate = path && validatorFor(method, path);
  if (!validate || validate(body)) return [];
  return (validate.errors ?? []).map((e) => ({
    razao: `${e.message ?? 'inválido'} ${JSON.stringify(e.params)}`,
    propriedade: e.instancePath || '(corpo)',
  }));
}
