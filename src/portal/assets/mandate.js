// A Pix Automático mandate's page: its terms, its QR code while the payer has not approved it (QR journeys), its
// history, `Cancelar autorização` (confirmed, with a reason), and its recurring charges (recurring-charges.js).
import { html, useState } from './lib.js';
import { get, patch, post } from './api.js';
import { Badge, ErrorNotice, Field, Loading, Page, useAction, useLoad, usePolling } from './ui.js';
import {
  FREQUENCY,
  JOURNEY,
  MANDATE_STATUS,
  REQUEST_STATUS,
  RETRY_POLICY,
  dateTime,
  day,
  documentText,
  money,
} from './format.js';
import { RecurringCharges } from './recurring-charges.js';

const path = (id) => `/v1/mandates/${encodeURIComponent(id)}`;
const LIVE = ['CREATED', 'APPROVED'];
const BY = { PAYER: 'pelo pagador', MERCHANT: 'por você' };

const fact = (label, value) =>
  html`<div>
    <dt>${label}</dt>
    <dd>${value}</dd>
  </div>`;

export function MandateDetail({ id }) {
  const state = useLoad(() => get(path(id)).then((r) => r.mandate), [id]);
  // waiting for the payer: the page follows it to Aprovada (or Recusada, Expirada) by itself
  usePolling(state.data?.status === 'CREATED', state.reload, 2000);
  return html`<${Page}
    title="Autorização Pix Automático"
    actions=${html`<a href="#/pix-automatico">Voltar ao Pix Automático</a>`}
  >
    <${Loading} state=${state}>
      ${(mandate) =>
        html`<div class="detail">
          <${Terms} mandate=${mandate} />
          ${mandate.status === 'CREATED' && mandate.qrCode ? html`<${MandateQr} mandate=${mandate} />` : null}
          ${mandate.request && mandate.status === 'CREATED' ? html`<${PushRequest} mandate=${mandate} onDone=${state.reload} />` : null}
          ${LIVE.includes(mandate.status) ? html`<${CancelMandate} mandate=${mandate} onDone=${state.reload} />` : null}
          <${History} mandate=${mandate} />
          <${RecurringCharges} mandate=${mandate} />
        </div>`}
    <//>
  <//>`;
}

// #/pix-automatico/cobranca/<recurring charge id> (a statement line's reference): its mandate's page.
export function RecurringChargeLink({ id }) {
  const state = useLoad(
    () =>
      get(`/v1/recurring-charges/${encodeURIComponent(id)}`).then(({ recurringCharge }) => {
        location.replace(`#/pix-automatico/${recurringCharge.mandateId}`);
        return recurringCharge;
      }),
    [id],
  );
  return html`<${Page} title="Cobrança recorrente">
    <${Loading} state=${state}>${() => html`<p class="muted" role="status">Abrindo a autorização…</p>`}<//>
  <//>`;
}

function valueText(m) {
  if (m.amount != null) return `${money(m.amount)} (fixo)`;
  return m.minAmount != null ? `Variável, limite do pagador de no mínimo ${money(m.minAmount)}` : 'Variável';
}

function Terms({ mandate: m }) {
  return html`<section class="card" aria-labelledby="resumo">
    <h2 id="resumo">${m.object || m.contract}</h2>
    <p class="big">${m.amount != null ? money(m.amount) : 'Valor variável'}</p>
    <p><${Badge} status=${m.status} labels=${MANDATE_STATUS} /></p>
    <dl class="facts">
      ${fact('Pagador', `${m.customer.name} (${documentText(m.customer.document)})`)} ${fact('Contrato', m.contract)}
      ${fact('Objeto', m.object || '—')} ${fact('Jornada', JOURNEY[m.journey] ?? m.journey)}
      ${fact('Frequência', FREQUENCY[m.frequency] ?? m.frequency)} ${fact('Valor', valueText(m))}
      ${m.payerMaxAmount != null ? fact('Limite definido pelo pagador', money(m.payerMaxAmount)) : null}
      ${fact('Início', day(m.startDate))} ${fact('Término', m.endDate ? day(m.endDate) : 'Sem data de término')}
      ${fact('Novas tentativas', RETRY_POLICY[m.retryPolicy] ?? m.retryPolicy)}
      ${m.status === 'CREATED' ? fact('Aprovar até', dateTime(m.expiresAt)) : null}
      ${m.request && m.status !== 'CREATED' ? fact('Pedido ao banco do pagador', REQUEST_STATUS[m.request.status] ?? m.request.status) : null}
      ${
        m.autoCharge
          ? fact(
              'Cobrança automática',
              `${m.autoCharge.leadDays} dias antes de cada período` +
                (m.autoCharge.amount != null ? `, ${money(m.autoCharge.amount)}` : ''),
            )
          : null
      }
      ${
        m.cancellation
          ? fact(
              'Cancelada',
              `${BY[m.cancellation.by] ?? m.cancellation.by}${m.cancellation.reason ? `: ${m.cancellation.reason}` : ''}`,
            )
          : null
      }
      ${fact('Criada em', dateTime(m.createdAt))}
      ${html`<div>
        <dt>Identificador (idRec)</dt>
        <dd class="code-inline">${m.recId}</dd>
      </div>`}
      ${
        m.chargeId
          ? html`<div>
              <dt>Primeiro pagamento</dt>
              <dd>
                <a href=${`#/cobrancas/${m.chargeId}`}>Ver a cobrança</a>${' · '}
                <a href=${m.paymentUrl} target="_blank" rel="noopener">Abrir a página do pagador</a>
              </dd>
            </div>`
          : null
      }
    </dl>
  </section>`;
}

// The BR Code the payer scans or pastes to approve (and, for QR_WITH_PAYMENT and DUE_DATE_QR, pay the first charge).
function MandateQr({ mandate }) {
  return html`<section class="card payable" aria-labelledby="qr">
    <h2 id="qr">QR Code para o pagador aprovar</h2>
    ${
      mandate.imageBase64
        ? html`<img
            class="qr"
            src=${mandate.imageBase64}
            width="240"
            height="240"
            alt=${`QR Code Pix Automático: ${mandate.object || mandate.contract}`}
          />`
        : null
    }
    <label for="copia-e-cola">Pix Automático copia e cola</label>
    <textarea id="copia-e-cola" class="code" readonly rows="4">${mandate.qrCode}</textarea>
  </section>`;
}

// PUSH: the request sent to the payer's bank; a new one once the last was refused or expired.
function PushRequest({ mandate, onDone }) {
  const action = useAction();
  const status = mandate.request.status;
  const again = status === 'REJECTED' || status === 'EXPIRED';
  const send = async () => {
    const result = await action.run(() => post(`${path(mandate.id)}/request`));
    if (result.ok) onDone();
  };
  return html`<section class="card" aria-labelledby="pedido">
    <h2 id="pedido">Pedido ao banco do pagador</h2>
    <p><${Badge} status=${status} labels=${REQUEST_STATUS} /></p>
    <p class="muted">
      ${
        again
          ? 'O pagador não respondeu ou recusou o pedido. Você pode enviar um novo enquanto a autorização estiver criada.'
          : 'O pagador recebe o pedido no app do banco dele e aprova ou recusa por lá.'
      }
    </p>
    ${
      again
        ? html`<button type="button" class="button" onClick=${send} disabled=${action.busy}>Enviar novo pedido</button>`
        : null
    }
    <${ErrorNotice} error=${action.error} />
  </section>`;
}

function CancelMandate({ mandate, onDone }) {
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const action = useAction();
  const cancel = async (e) => {
    e.preventDefault();
    const body = { status: 'CANCELED', ...(reason.trim() ? { reason: reason.trim() } : {}) };
    const result = await action.run(() => patch(path(mandate.id), body));
    if (result.ok) onDone(); // the page shows it Cancelada, and this card goes
  };
  return html`<section class="card" aria-labelledby="cancelar">
    <h2 id="cancelar">Cancelar autorização</h2>
    <p class="muted">
      ${
        mandate.status === 'APPROVED'
          ? 'Nenhuma nova cobrança poderá ser feita; as cobranças com vencimento depois de hoje são canceladas.'
          : 'O pagador não poderá mais aprovar esta autorização.'
      }
    </p>
    ${
      confirming
        ? html`<form onSubmit=${cancel} class="stack">
            <${Field}
              id="cancelar-motivo"
              label="Motivo (opcional)"
              maxlength="140"
              value=${reason}
              onInput=${(e) => setReason(e.currentTarget.value)}
            />
            <div class="confirm" role="group" aria-label="Cancelar esta autorização?">
              <button type="submit" class="button danger" disabled=${action.busy}>Confirmar cancelamento</button>
              <button type="button" class="button secondary" onClick=${() => setConfirming(false)}>Voltar</button>
            </div>
          </form>`
        : html`<button type="button" class="button secondary" onClick=${() => setConfirming(true)}>
            Cancelar autorização
          </button>`
    }
    <${ErrorNotice} error=${action.error} />
  </section>`;
}

function History({ mandate }) {
  return html`<section class="card" aria-labelledby="historico">
    <h2 id="historico">Histórico</h2>
    <ol class="history">
      ${mandate.history.map(
        (h) => html`<li><${Badge} status=${h.status} labels=${MANDATE_STATUS} /> <span>${dateTime(h.at)}</span></li>`,
      )}
    </ol>
  </section>`;
}
