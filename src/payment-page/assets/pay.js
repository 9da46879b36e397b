/* global document, navigator, fetch, setTimeout, clearTimeout */
// The payment page's only script, a file of its own so the Content-Security-Policy (script-src 'self') allows it.
// The page reads without it; it copies the code and follows the status (GET /pay/<id>/status every 2 s while the page
// is visible) until the status is final, then stops.
const POLL_MS = 2000;

const main = document.querySelector('main[data-charge]');
if (main) {
  followStatus(main);
  copyButton();
}

function followStatus(main) {
  const url = `/pay/${encodeURIComponent(main.dataset.charge)}/status`;
  const box = document.getElementById('status');
  let timer = null;

  const final = () => main.dataset.status !== 'PENDING';
  const show = (s) => {
    main.dataset.status = s.status;
    box.dataset.tone = s.tone;
    box.querySelector('.status-title').textContent = s.title;
    box.querySelector('.status-detail').textContent = s.detail;
    document.getElementById('payable').hidden = s.status !== 'PENDING';
  };
  const schedule = (ms) => {
    if (final() || timer !== null || document.hidden) return;
    timer = setTimeout(poll, ms);
  };
  async function poll() {
    timer = null;
    let wait = POLL_MS;
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' } });
      if (res.ok) show(await res.json());
      else if (res.status === 429) wait = Math.max(POLL_MS, 1000 * Number(res.headers.get('retry-after') || 0));
    } catch {
      wait = 2 * POLL_MS; // offline for a moment: try again a little later
    }
    schedule(wait);
  }

  // a hidden tab does not poll; back in view, it asks at once
  document.addEventListener('visibilitychange', () => {
    if (document.hidden || final()) return;
    clearTimeout(timer);
    timer = null;
    poll();
  });
  schedule(POLL_MS);
}

function copyButton() {
  const button = document.getElementById('copy');
  const code = document.getElementById('brcode');
  const feedback = document.getElementById('copy-feedback');
  if (!button || !code || !feedback) return;
  button.addEventListener('click', async () => {
    let copied = false;
    try {
      await navigator.clipboard.writeText(code.value);
      copied = true;
    } catch {
      // no Clipboard API (a page over plain http): select the code and copy it the old way
      code.focus();
      code.select();
      copied = document.execCommand('copy');
    }
    feedback.textContent = '';
    // set after a tick, so a screen reader announces it again on a second click
    setTimeout(() => {
      feedback.textContent = copied
        ? 'Código copiado! Cole no app do seu banco, em PIX copia e cola.'
        : 'Não foi possível copiar. Selecione o código acima e copie.';
    }, 50);
  });
}
