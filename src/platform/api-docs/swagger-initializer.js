// Loaded from its own file, not inline, so helmet's default Content-Security-Policy (script-src 'self') allows it.
globalThis.ui = globalThis.SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [globalThis.SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
