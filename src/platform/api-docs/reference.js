// Loaded from its own file, not inline, so the Content-Security-Policy (script-src 'self') allows it.
// Nothing leaves the API's origin: no web fonts, no telemetry, no proxy, no agent; requests go to the servers listed
// in the document.
globalThis.Scalar.createApiReference('#reference', {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideDarkModeToggle: true,
  forceDarkModeState: 'light',
  documentDownloadType: 'json',
  defaultOpenAllTags: true,
});

// The renderer's copy buttons on code blocks are an icon without an accessible name: give them one.
new globalThis.MutationObserver(() => {
  for (const button of globalThis.document.querySelectorAll('button.scalar-code-copy:not([aria-label])'))
    button.setAttribute('aria-label', 'Copy code');
}).observe(globalThis.document.body, { childList: true, subtree: true });
