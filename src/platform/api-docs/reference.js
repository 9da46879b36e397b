// Loaded from its own file, not inline, so the Content-Security-Policy (script-src 'self') allows it.
// Nothing leaves the API's origin: no web fonts, no telemetry, no proxy, no agent; requests go to the servers listed
// in the document. The document is read here and each operation gets its code samples (x-codeSamples): our SDK's call
// and curl, the only two clients shown.
const { document: page, location, fetch, URLSearchParams } = globalThis;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const BASE = location.origin;

const spec = await (await fetch('/openapi.json')).json();
const deref = (node) => {
  for (let n = node, seen = 0; n && typeof n === 'object' && '$ref' in n && seen < 20; seen++) {
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((at, key) => at?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], spec);
    node = n;
  }
  return node;
};

// An example body: the operation's own (its first named example), else one built from the schema's required fields.
function exampleBody(operation) {
  const json = deref(deref(operation.requestBody)?.content?.['application/json']);
  if (!json) return undefined;
  if (json.example !== undefined) return json.example;
  const named = json.examples && Object.values(json.examples)[0];
  if (named) return deref(named).value;
  return fromSchema(json.schema, 0);
}
function fromSchema(ref, depth) {
  const schema = deref(ref) ?? {};
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  const branch = schema.allOf?.[0] ?? schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (branch) return fromSchema(branch, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    if (depth > 3) return {};
    const required = schema.required ?? [];
    return Object.fromEntries(required.map((name) => [name, fromSchema(schema.properties?.[name], depth + 1)]));
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return true;
  return schema.format === 'uuid' ? '01931c6e-…' : '…';
}

const paramValue = (p) =>
  p.example ?? (p.schema && deref(p.schema).example) ?? (p.in === 'header' ? 'pedido-1' : `<${p.name}>`);
const js = (value, indent) => JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`);
const quoted = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`;

// The SDK's resource helpers (sdk/README.md): the operation they call -> the helper and its arguments (the path's
// parameters in order, then the body when the operation takes one). The others show the typed client's raw call.
const HELPERS = {
  'post /v1/charges': 'charges.create',
  'get /v1/charges': 'charges.list',
  'get /v1/charges/{id}': 'charges.get',
  'post /v1/charges/{id}/refunds': 'charges.refund',
  'post /v1/merchants/me/withdrawals': 'withdrawals.create',
  'get /v1/merchants/me/withdrawals': 'withdrawals.list',
  'post /v1/webhooks/merchant': 'webhooks.create',
  'get /v1/webhooks/merchant': 'webhooks.list',
  'patch /v1/webhooks/merchant/{id}': 'webhooks.update',
  'delete /v1/webhooks/merchant/{id}': 'webhooks.remove',
  'post /v1/webhooks/merchant/{id}/test': 'webhooks.test',
  'post /v1/webhooks/merchant/{id}/deliveries/{deliveryId}/resend': 'webhooks.resend',
  'post /v1/webhooks/merchant/{id}/secret/rotate': 'webhooks.rotateSecret',
  'get /v1/events': 'events.list',
  'post /v1/mandates': 'mandates.create',
  'get /v1/mandates': 'mandates.list',
  'get /v1/mandates/{id}': 'mandates.get',
  'patch /v1/mandates/{id}': 'mandates.cancel',
  'post /v1/mandates/{id}/charges': 'recurringCharges.create',
  'get /v1/recurring-charges': 'recurringCharges.list',
  'get /v1/recurring-charges/{id}': 'recurringCharges.get',
  'post /v1/recurring-charges/{id}/retries': 'recurringCharges.retry',
};

function helperCall(helper, pathParams, body, method) {
  const args = Object.values(pathParams).map((v) => quoted(v));
  // mandates.cancel takes only the reason: the helper sends status CANCELED itself
  const sent =
    helper === 'mandates.cancel' && body
      ? Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'status'))
      : body;
  if (sent !== undefined) args.push(js(sent, ''));
  const keyed = (method === 'post' && helper.endsWith('.create')) || helper === 'charges.refund';
  return (
    (keyed ? '// an x-idempotency-key is generated (or pass { idempotencyKey }) and kept across retries\n' : '') +
    `const result = await pix.${helper}(${args.join(', ')});`
  );
}

function samples(path, method, operation, pathItem) {
  const params = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]
    .map(deref)
    .filter((p) => p && p.name !== 'x-request-id' && (p.in === 'path' || p.required || p.name === 'x-idempotency-key'));
  const byPlace = (place) =>
    Object.fromEntries(params.filter((p) => p.in === place).map((p) => [p.name, paramValue(p)]));
  const [pathParams, query, header] = [byPlace('path'), byPlace('query'), byPlace('header')];
  const body = exampleBody(operation);
  const open = operation.security?.length === 0 || (!operation.security && !spec.security);
  const out = [];

  if (path.startsWith('/v1/') && !path.startsWith('/v1/acquirer/')) {
    const options = [];
    const placed = Object.entries({ path: pathParams, query, header }).filter(([, v]) => Object.keys(v).length);
    if (placed.length)
      options.push(
        `params: {\n${placed.map(([place, v]) => `    ${place}: ${js(v, '').replace(/\n\s*/g, ' ')},\n`).join('')}  }`,
      );
    if (body !== undefined) options.push(`body: ${js(body, '  ')}`);
    const call = `pix.${method.toUpperCase()}('${path}'${options.length ? `, {\n  ${options.join(',\n  ')},\n}` : ''})`;
    const helper = HELPERS[`${method} ${path}`];
    out.push({
      lang: 'typescript',
      label: 'SDK',
      source:
        "import { createPixClient } from '@pix-payments/sdk';\n\n" +
        `const pix = createPixClient({\n  baseUrl: '${BASE}',\n${open ? '' : '  token: process.env.PIX_TOKEN,\n'}});\n` +
        (helper
          ? `${helperCall(helper, pathParams, body, method)} // throws PixApiError { status, code, message }`
          : `const { data, error } = await ${call};`),
    });
  }

  const url =
    BASE +
    path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(pathParams[name] ?? `<${name}>`)) +
    (Object.keys(query).length ? `?${new URLSearchParams(query)}` : '');
  const lines = [`curl -X ${method.toUpperCase()} ${quoted(url)}`];
  if (!open) lines.push(`-H "authorization: Bearer $PIX_TOKEN"`);
  for (const [name, value] of Object.entries(header)) lines.push(`-H ${quoted(`${name}: ${value}`)}`);
  if (body !== undefined) lines.push(`-H 'content-type: application/json'`, `-d ${quoted(JSON.stringify(body))}`);
  out.push({ lang: 'shell', label: 'curl', source: lines.join(' \\\n  ') });
  return out;
}

// The introduction is long (conventions, dates, errors, limits): its first paragraph stays, the rest folds behind a
// summary, so the first screen reaches the operations.
const [lead, ...rest] = (spec.info?.description ?? '').trim().split(/\n\s*\n/);
if (rest.length)
  spec.info.description = `${lead}\n\n<details>\n<summary>Conventions, errors, dates, limits</summary>\n\n${rest.join('\n\n')}\n\n</details>\n`;

for (const [path, item] of Object.entries(spec.paths ?? {}))
  for (const method of METHODS)
    if (item[method] && !item[method]['x-codeSamples'])
      item[method]['x-codeSamples'] = samples(path, method, item[method], item);

globalThis.Scalar.createApiReference('#reference', {
  content: spec,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideDarkModeToggle: true,
  forceDarkModeState: 'light',
  documentDownloadType: 'json',
  defaultOpenAllTags: true,
  hiddenClients: true, // only the samples above: the SDK and curl
  hideModels: true,
});

// The renderer's copy buttons on code blocks are an icon without an accessible name: give them one. It contains the
// words the button shows (the language while the code block has focus, "Copy" while the button has), which change
// when the reader picks the other client.
const labelCopyButtons = () => {
  for (const button of page.querySelectorAll('button.scalar-code-copy')) {
    const words = [...button.querySelectorAll('span')]
      .filter((s) => !s.children.length)
      .map((s) => s.textContent.trim());
    const language = words.find((w) => w && w !== 'Copy' && !w.includes(' '));
    const label = language ? `Copy ${language} code` : 'Copy code';
    if (button.getAttribute('aria-label') !== label) button.setAttribute('aria-label', label);
  }
};
new globalThis.MutationObserver(labelCopyButtons).observe(page.body, {
  childList: true,
  subtree: true,
  characterData: true,
});
