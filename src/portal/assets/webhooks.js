// Webhooks: the merchant's endpoints (new, pause/resume, delete) and, per endpoint, its deliveries (resend one, send
// a test event) and its signing secret (rotate; the new one shown once).
import { html, useEffect, useRef, useState } from './lib.js';
import { ApiError, del, get, patch, post, query } from './api.js';
import {
  Badge,
  ErrorNotice,
  Field,
  Loading,
  Page,
  Pager,
  SecretOnce,
  Success,
  Table,
  useAction,
  useLoad,
  usePolling,
} from './ui.js';
import { DELIVERY_STATUS, WEBHOOK_STATUS, dateTime } from './format.js';

const BASE = '/v1/webhooks/merchant';
const path = (id, rest = '') => `${BASE}/${encodeURIComponent(id)}${rest}`;
const loadCatalog = () => get(`${BASE}/events`).then((r) => r.events);

export function Webhooks() {
  const state = useLoad(async () => {
    const [{ webhooks }, events] = await Promise.all([get(BASE), loadCatalog()]);
    return { webhooks, events };
  }, []);
  const [secret, setSecret] = useState(null);
  return html`<${Page} title="Webhooks">
    <p class="muted">O serviço envia cada evento por POST, assinado (Standard Webhooks), às URLs cadastradas aqui.</p>
    ${
      secret
        ? html`<${SecretOnce}
            id="segredo-novo"
            title="Segredo de assinatura do novo webhook"
            value=${secret}
            onDone=${() => setSecret(null)}
          />`
        : null
    }
    <${Loading} state=${state}>
      ${({ webhooks, events }) =>
        html`<${NewWebhook}
            events=${events}
            onCreated=${(webhook) => {
              setSecret(webhook.secret);
              state.reload();
            }}
          />
          <section aria-labelledby="lista-webhooks">
            <h2 id="lista-webhooks">Seus webhooks</h2>
            ${
              webhooks.length
                ? html`<ul class="webhooks">
                    ${webhooks.map((w) => html`<li key=${w.id}><${WebhookCard} webhook=${w} onChange=${state.reload} /></li>`)}
                  </ul>`
                : html`<p class="muted">Nenhum webhook ainda.</p>`
            }
          </section>`}
    <//>
  <//>`;
}

function NewWebhook({ events, onCreated }) {
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState([]);
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const body = { url: url.trim(), events: chosen, ...(name.trim() ? { name: name.trim() } : {}) };
    const result = await action.run(() => post(BASE, body));
    if (result.ok) {
      setUrl('');
      setName('');
      setChosen([]);
      onCreated(result.value.webhook);
    }
  };
  const toggle = (event) =>
    setChosen((now) => (now.includes(event) ? now.filter((e) => e !== event) : [...now, event]));
  const categories = [...new Set(events.map((e) => e.category))];
  return html`<details class="card form-card">
    <summary>Novo webhook</summary>
    <form onSubmit=${submit} class="stack">
      <${Field}
        id="webhook-url"
        label="URL"
        type="url"
        required
        placeholder="https://sua-loja.com.br/webhooks/pix"
        value=${url}
        onInput=${(e) => setUrl(e.currentTarget.value)}
      />
      <${Field}
        id="webhook-nome"
        label="Nome"
        maxlength="100"
        value=${name}
        onInput=${(e) => setName(e.currentTarget.value)}
      />
      <fieldset class="events">
        <legend>Eventos</legend>
        <p class="hint">Nenhum marcado: todos os eventos, inclusive os que vierem a existir.</p>
        ${categories.map(
          (category) =>
            html`<div class="event-group">
              <p class="event-category">${category}</p>
              ${events
                .filter((e) => e.category === category)
                .map(
                  (e) =>
                    html`<div class="check">
                      <input
                        type="checkbox"
                        id=${`evento-${e.event}`}
                        checked=${chosen.includes(e.event)}
                        onChange=${() => toggle(e.event)}
                      />
                      <label for=${`evento-${e.event}`}
                        ><code>${e.event}</code> <span class="muted">${e.description}</span></label
                      >
                    </div>`,
                )}
            </div>`,
        )}
      </fieldset>
      <${ErrorNotice} error=${action.error} />
      <button class="button" type="submit" disabled=${action.busy}>Criar webhook</button>
    </form>
  </details>`;
}

function WebhookCard({ webhook, onChange }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const paused = webhook.status === 'INACTIVE';
  const label = webhook.name || webhook.url;
  const setStatus = () =>
    action.run(() => patch(path(webhook.id), { status: paused ? 'ACTIVE' : 'INACTIVE' })).then(onChange);
  const remove = () => action.run(() => del(path(webhook.id))).then(onChange);
  const titleId = `webhook-${webhook.id}`;
  return html`<article class="card webhook" aria-labelledby=${titleId}>
    <div class="webhook-head">
      <h3 id=${titleId}>${label}</h3>
      <${Badge} status=${webhook.status} labels=${WEBHOOK_STATUS} />
    </div>
    <dl class="facts">
      <div>
        <dt>URL</dt>
        <dd class="code-inline">${webhook.url}</dd>
      </div>
      <div>
        <dt>Eventos</dt>
        <dd>${webhook.events.length ? webhook.events.join(', ') : 'Todos'}</dd>
      </div>
      <div>
        <dt>Segredo</dt>
        <dd class="code-inline">${webhook.secret}</dd>
      </div>
      ${
        webhook.disabledReason
          ? html`<div>
              <dt>Pausado pelo serviço</dt>
              <dd>Entregas falhando desde ${dateTime(webhook.disabledAt)}</dd>
            </div>`
          : null
      }
    </dl>
    <div class="actions">
      <a class="button secondary" href=${`#/webhooks/${webhook.id}`}>Entregas e testes</a>
      <button type="button" class="button secondary" onClick=${setStatus} disabled=${action.busy}>
        ${paused ? 'Retomar' : 'Pausar'}
      </button>
      ${
        confirming
          ? html`<span class="confirm" role="group" aria-label=${`Excluir ${label}?`}>
              <button type="button" class="button danger" onClick=${remove} disabled=${action.busy}>
                Confirmar exclusão
              </button>
              <button type="button" class="button secondary" onClick=${() => setConfirming(false)}>Cancelar</button>
            </span>`
          : html`<button type="button" class="button secondary" onClick=${() => setConfirming(true)}>Excluir</button>`
      }
    </div>
    <${ErrorNotice} error=${action.error} />
  </article>`;
}

export function WebhookDetail({ id }) {
  const state = useLoad(async () => {
    const [{ webhooks }, events] = await Promise.all([get(BASE), loadCatalog()]);
    const webhook = webhooks.find((w) => w.id === id);
    if (!webhook) throw new ApiError(404, { message: 'Webhook não encontrado' });
    return { webhook, events };
  }, [id]);
  const [secret, setSecret] = useState(null);
  return html`<${Page} title="Webhook" actions=${html`<a href="#/webhooks">Voltar aos webhooks</a>`}>
    <${Loading} state=${state}>
      ${({ webhook, events }) =>
        html`<section class="card" aria-labelledby="webhook-resumo">
            <div class="webhook-head">
              <h2 id="webhook-resumo">${webhook.name || webhook.url}</h2>
              <${Badge} status=${webhook.status} labels=${WEBHOOK_STATUS} />
            </div>
            <p class="code-inline">${webhook.url}</p>
          </section>
          <div class="cards">
            <${SendTest} webhook=${webhook} events=${events} />
            <${RotateSecret} webhook=${webhook} onRotated=${setSecret} />
          </div>
          ${
            secret
              ? html`<${SecretOnce}
                  id="segredo-rotacionado"
                  title="Novo segredo de assinatura"
                  value=${secret}
                  onDone=${() => setSecret(null)}
                />`
              : null
          }
          <${Deliveries} webhook=${webhook} events=${events} />`}
    <//>
  <//>`;
}

function SendTest({ webhook, events }) {
  const [event, setEvent] = useState(events[0]?.event ?? 'charge.paid');
  const [done, setDone] = useState(null);
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    setDone(null);
    const result = await action.run(() => post(path(webhook.id, '/test'), { event }));
    if (result.ok) {
      setDone(`Evento de teste ${event} enviado.`);
      dispatchEvent(new Event('portal:deliveries'));
    }
  };
  return html`<section class="card" aria-labelledby="teste">
    <h2 id="teste">Enviar teste</h2>
    <p class="muted">Um exemplo do evento, assinado e registrado como qualquer entrega.</p>
    <form onSubmit=${submit} class="stack">
      <${Field} id="teste-evento" label="Evento">
        <select id="teste-evento" value=${event} onChange=${(e) => setEvent(e.currentTarget.value)}>
          ${events.map((e) => html`<option value=${e.event}>${e.event}</option>`)}
        </select>
      <//>
      <${ErrorNotice} error=${action.error} />
      <${Success}>${done}<//>
      <button class="button" type="submit" disabled=${action.busy}>Enviar teste</button>
    </form>
  </section>`;
}

const OVERLAPS = [
  [86400, 'por 24 horas'],
  [3600, 'por 1 hora'],
  [0, 'não (troca imediata)'],
];

function RotateSecret({ webhook, onRotated }) {
  const [overlap, setOverlap] = useState('86400');
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const result = await action.run(() =>
      post(path(webhook.id, '/secret/rotate'), { overlapSeconds: Number(overlap) }),
    );
    if (result.ok) onRotated(result.value.webhook.secret);
  };
  return html`<section class="card" aria-labelledby="rotacionar">
    <h2 id="rotacionar">Rotacionar segredo</h2>
    <p class="muted">Durante a transição, cada entrega leva as duas assinaturas: a do segredo novo e a do antigo.</p>
    <form onSubmit=${submit} class="stack">
      <${Field} id="rotacao-janela" label="Aceitar também o segredo antigo">
        <select id="rotacao-janela" value=${overlap} onChange=${(e) => setOverlap(e.currentTarget.value)}>
          ${OVERLAPS.map(([v, label]) => html`<option value=${String(v)}>${label}</option>`)}
        </select>
      <//>
      <${ErrorNotice} error=${action.error} />
      <button class="button" type="submit" disabled=${action.busy}>Rotacionar segredo</button>
    </form>
  </section>`;
}

const LIMIT = 20;
// a log row's state: `status` where the API gives it, else from `success`
const deliveryStatus = (d) => d.status ?? (d.success ? 'SUCCEEDED' : 'FAILED');

function Deliveries({ webhook, events }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [event, setEvent] = useState('');
  const state = useLoad(
    () => get(path(webhook.id, `/deliveries${query({ page, limit: LIMIT, status, event })}`)),
    [webhook.id, page, status, event],
  );
  useOnWindowEvent('portal:deliveries', state.reload);
  usePolling(!!state.data?.deliveries.some((d) => deliveryStatus(d) === 'PENDING'), state.reload, 2000);
  return html`<section aria-labelledby="entregas">
    <div class="section-head">
      <h2 id="entregas">Entregas</h2>
      <div class="filters">
        <${Field} id="entregas-status" label="Status">
          <select
            id="entregas-status"
            value=${status}
            onChange=${(e) => (setStatus(e.currentTarget.value), setPage(1))}
          >
            <option value="">Todos</option>
            ${Object.entries(DELIVERY_STATUS).map(([v, label]) => html`<option value=${v}>${label}</option>`)}
          </select>
        <//>
        <${Field} id="entregas-evento" label="Evento">
          <select id="entregas-evento" value=${event} onChange=${(e) => (setEvent(e.currentTarget.value), setPage(1))}>
            <option value="">Todos</option>
            ${events.map((e) => html`<option value=${e.event}>${e.event}</option>`)}
          </select>
        <//>
        <button type="button" class="button secondary" onClick=${state.reload}>Atualizar</button>
      </div>
    </div>
    <${Loading} state=${state}>
      ${(data) =>
        html`<${Table}
            caption="Entregas deste webhook"
            empty="Nenhuma entrega ainda."
            rows=${data.deliveries}
            columns=${[
              { label: 'Criada em', cell: (d) => dateTime(d.createdAt) },
              { label: 'Evento', cell: (d) => html`<code id=${`evento-entrega-${d.id}`}>${d.event}</code>` },
              {
                label: 'Status',
                cell: (d) => html`<${Badge} status=${deliveryStatus(d)} labels=${DELIVERY_STATUS} />`,
              },
              { label: 'HTTP', cell: (d) => d.statusCode ?? '—' },
              { label: 'Tentativas', num: true, cell: (d) => d.attempts },
              {
                label: 'Ações',
                cell: (d) => html`<${DeliveryActions} webhook=${webhook} delivery=${d} onDone=${state.reload} />`,
              },
            ]}
          />
          <${Pager} page=${page} limit=${LIMIT} total=${data.total} onPage=${setPage} label="entregas" />`}
    <//>
  </section>`;
}

function DeliveryActions({ webhook, delivery, onDone }) {
  const action = useAction();
  const [sent, setSent] = useState(false);
  const resend = async () => {
    const result = await action.run(() =>
      post(path(webhook.id, `/deliveries/${encodeURIComponent(delivery.id)}/resend`)),
    );
    if (result.ok) {
      setSent(true);
      onDone();
    }
  };
  return html`<div class="row-actions">
    <button
      type="button"
      class="button secondary small"
      aria-describedby=${`evento-entrega-${delivery.id}`}
      onClick=${resend}
      disabled=${action.busy}
    >
      Reenviar
    </button>
    ${sent ? html`<span role="status" class="muted">Reenviada</span>` : null}
    <details>
      <summary>Detalhes</summary>
      <p class="hint">webhook-id: <code>${delivery.deliveryId}</code></p>
      <p class="hint">Corpo enviado</p>
      <pre>${pretty(delivery.payload)}</pre>
      <p class="hint">Resposta</p>
      <pre>${delivery.response || '—'}</pre>
    </details>
    <${ErrorNotice} error=${action.error} />
  </div>`;
}

function pretty(payload) {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

// a test sent on this page lists its delivery at once
function useOnWindowEvent(name, fn) {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    const listener = () => latest.current();
    addEventListener(name, listener);
    return () => removeEventListener(name, listener);
  }, [name]);
}
