// The portal's one HTML document: a shell for its script (no inline script or style, so the API's CSP applies as it
// is). Without JavaScript it says so; the script replaces #app with the login form or the signed-in portal. In the
// sandbox (ACQUIRER=sandbox, which also mounts /v1/sandbox) a meta tag tells the script to show the test account's
// buttons.
export function renderPortalShell(assets: string, { sandbox = false }: { sandbox?: boolean } = {}): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
${sandbox ? '<meta name="portal-sandbox" content="ACQUIRER=sandbox">\n' : ''}<title>Portal do lojista</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}/portal.css">
<link rel="modulepreload" href="${assets}/vendor/preact.js">
<script type="module" src="${assets}/app.js"></script>
</head>
<body>
<div id="app">
<main class="login">
<h1>Portal do lojista</h1>
<p>Carregando…</p>
<noscript><p>O portal precisa de JavaScript ligado no navegador.</p></noscript>
</main>
</div>
</body>
</html>
`;
}
