// The payer's page as HTML, rendered on the server: it reads and paints with no script at all (first paint is one
// response); /pay/assets/pay.js only copies the code and follows the status. Portuguese (pt-BR), no inline script
// or style, so the API's Content-Security-Policy applies unchanged.
import { qrPngBuffer } from '../pix/qr-png.ts';
import type { ChargeStatus } from '../charges/charge.entity.ts';
import type { MandateTerms, PaymentPage } from './payment-page.service.ts';

// What the page says of each status; GET /pay/:id/status answers the same words, so the script holds no copy.
export const STATUS_TEXT: Record<ChargeStatus, { tone: string; title: string; detail: string }> = {
  PENDING: {
    tone: 'pending',
    title: 'Aguardando pagamento',
    detail: 'Esta página se atualiza sozinha quando o pagamento for confirmado.',
  },
  PAID: { tone: 'paid', title: 'Pagamento confirmado', detail: 'Tudo certo! Você já pode fechar esta página.' },
  REFUNDED: { tone: 'closed', title: 'Pagamento devolvido', detail: 'O valor pago foi devolvido a quem pagou.' },
  CANCELED: {
    tone: 'closed',
    title: 'Cobrança expirada',
    detail: 'O prazo para pagar terminou. Peça um novo link a quem fez a cobrança.',
  },
  FAILED: { tone: 'closed', title: 'Cobrança indisponível', detail: 'Esta cobrança não pode mais ser paga.' },
};

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const money = (centavos: number) => BRL.format(centavos / 100);
// Payers are in Brazil: times in Brasília time; a due date is a calendar day, shown as it is.
const DATE_TIME = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  dateStyle: 'short',
  timeStyle: 'short',
});
const DAY = new Intl.DateTimeFormat('pt-BR', { timeZone: 'UTC', dateStyle: 'short' });
const day = (isoDate: string) => DAY.format(new Date(`${isoDate}T00:00:00Z`));

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export type Assets = { css: string; js: string }; // their URLs, with a version

function htmlDocument(title: string, assets: Assets, body: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${esc(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css}">
<script src="${assets.js}" defer></script>
</head>
<body>
${body}
<footer class="foot"><p>Pagamento por PIX, o pagamento instantâneo do Banco Central do Brasil.</p></footer>
</body>
</html>
`;
}

// The QR code as an image the page carries itself (img-src 'self' data: under the CSP): no second request.
function qrImage(qrCode: string, alt: string): string {
  const png = qrPngBuffer(qrCode);
  const side = png.readUInt32BE(16); // the IHDR's width (the image is square)
  return `<img class="qr" src="data:image/png;base64,${png.toString('base64')}" width="${side}" height="${side}" alt="${esc(alt)}">`;
}

const FREQUENCY: Record<MandateTerms['frequency'], string> = {
  WEEKLY: 'Semanal',
  MONTHLY: 'Mensal',
  QUARTERLY: 'Trimestral',
  SEMIANNUAL: 'Semestral',
  ANNUAL: 'Anual',
};

// Pix Automático (QR_WITH_PAYMENT, DUE_DATE_QR): what paying this code also authorises, before the code itself.
function recurrence(m: MandateTerms, merchantName: string, status: string): string {
  const lead =
    status === 'PENDING'
      ? `Ao pagar com este código, você também autoriza <strong>${esc(merchantName)}</strong> a fazer cobranças ` +
        'recorrentes na sua conta pelo Pix Automático, nestes termos. O app do seu banco pede a sua confirmação.'
      : `Esta cobrança inclui uma autorização de Pix Automático para <strong>${esc(merchantName)}</strong>, nestes termos.`;
  const value =
    m.amount != null
      ? `${money(m.amount)} a cada cobrança`
      : `Valor variável${m.minAmount != null ? ` (você define um limite de no mínimo ${money(m.minAmount)})` : ' (você pode definir um limite)'}`;
  const terms: [string, string][] = [
    ['Recebedor', merchantName],
    ['Objeto', m.object || '—'],
    ['Contrato', m.contract],
    ['Frequência', FREQUENCY[m.frequency]],
    ['Valor', value],
    ['Início', day(m.startDate)],
    ['Término', m.endDate ? day(m.endDate) : 'Sem data de término'],
  ];
  return `<section id="recurrence" class="recurrence" aria-labelledby="recurrence-title">
<h2 id="recurrence-title">Autorização de Pix Automático</h2>
<p>${lead}</p>
<dl class="terms">${terms.map(([k, v]) => `<div><dt>${k}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>
<p class="note">Você pode cancelar a autorização quando quiser, no app do seu banco.</p>
</section>`;
}

export function renderPaymentPage({ charge, merchantName, status, mandate }: PaymentPage, assets: Assets): string {
  const text = STATUS_TEXT[status];
  // What the payer pays (paid: what was paid; a due-date charge: today's amount), and the original beside it when
  // they differ (a discount, a fine, interest).
  const dueToday = status === 'PENDING' && charge.dueDate ? charge.amountDue : null;
  const shown = charge.paidAmount ?? dueToday ?? charge.amount;
  const label = charge.paidAmount != null ? 'Valor pago' : dueToday != null ? 'Valor para pagamento hoje' : 'Valor';
  const toPay = money(shown);
  const facts = [
    charge.dueDate ? ['Vencimento', day(charge.dueDate)] : null,
    shown !== charge.amount ? ['Valor original', money(charge.amount)] : null,
  ].filter((f) => f !== null);
  // the mandate's BR Code carries both the payment and the recurrence (field 80): paying it approves the mandate
  const code = mandate ? mandate.qrCode : charge.qrCode;
  const alt = `QR Code PIX para pagar ${toPay} a ${merchantName}${mandate ? ' e autorizar o Pix Automático' : ''}`;
  const deadline = charge.expiresAt
    ? `<p class="deadline">Pague até ${DATE_TIME.format(new Date(charge.expiresAt))} (horário de Brasília).</p>`
    : '';
  // The code before the QR: on a phone, the payer pastes it into the bank's app on the same phone; from 48rem up,
  // the stylesheet puts the QR on the left, to be scanned.
  const body = `<main class="card" data-charge="${esc(charge.id)}" data-status="${status}">
<header class="head">
<p class="eyebrow">Cobrança de</p>
<h1 class="merchant">${esc(merchantName)}</h1>
<p class="description">${esc(charge.description)}</p>
</header>
<p class="amount"><span class="amount-label">${label}</span> <span class="amount-value">${toPay}</span></p>
${facts.length ? `<dl class="facts">${facts.map(([k, v]) => `<div><dt>${k}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>` : ''}
<div id="status" class="status" data-tone="${text.tone}" role="status">
<p class="status-title">${text.title}</p>
<p class="status-detail">${text.detail}</p>
</div>
${mandate ? recurrence(mandate, merchantName, status) : ''}
<section id="payable" class="payable" aria-labelledby="how"${status === 'PENDING' ? '' : ' hidden'}>
<h2 id="how">Pague com PIX</h2>
<div class="ways">
<div class="paste">
<label for="brcode">Código PIX copia e cola</label>
<textarea id="brcode" class="code" readonly rows="5" spellcheck="false">${esc(code)}</textarea>
<button type="button" id="copy" class="button">Copiar código</button>
<p id="copy-feedback" class="feedback" role="status"></p>
${deadline}
</div>
<figure class="scan">
${qrImage(code, alt)}
<figcaption>Escaneie o QR Code com o app do seu banco.</figcaption>
</figure>
</div>
<ol class="steps">
<li>Copie o código, abra o app do seu banco e escolha <strong>PIX copia e cola</strong>; ou escaneie o QR Code.</li>
<li>Confira o valor${mandate ? ', quem recebe e a autorização' : ' e quem recebe'}, e confirme.</li>
<li>Pronto: esta página mostra quando o pagamento chegar.</li>
</ol>
</section>
</main>`;
  return htmlDocument(`Pagar ${toPay} a ${merchantName}`, assets, body);
}

// Unknown or malformed id (404), too many requests (429): the page's own errors, in Portuguese, as HTML.
export function renderErrorPage(status: number, assets: Assets): string {
  const [title, detail] =
    status === 404
      ? ['Cobrança não encontrada', 'Confira se o link está completo, ou peça um novo link a quem fez a cobrança.']
      : status === 429
        ? ['Muitas requisições', 'Aguarde alguns instantes e recarregue a página.']
        : ['Não foi possível abrir a cobrança', 'Tente de novo em alguns instantes.'];
  return htmlDocument(
    title,
    assets,
    `<main class="card">
<h1 class="merchant">${title}</h1>
<p class="description">${detail}</p>
</main>`,
  );
}
