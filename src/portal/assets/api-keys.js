// Chaves de API: the merchant's keys for its servers (new, deactivate); a new key's `lk_` value is shown once.
import { html, useState } from './lib.js';
import { del, get, post } from './api.js';
import { Badge, ErrorNotice, Field, Loading, Page, SecretOnce, Table, useAction, useLoad } from './ui.js';
import { KEY_STATUS, dateTime } from './format.js';

export function ApiKeys() {
  const state = useLoad(() => get('/v1/api-keys').then((r) => r.apiKeys), []);
  const [created, setCreated] = useState(null);
  return html`<${Page} title="Chaves de API">
    <p class="muted">
      Uma chave de API autentica os servidores da sua loja (<code>Authorization: Bearer lk_…</code>). Nunca a coloque em
      código que roda no navegador ou no celular do cliente.
    </p>
    ${
      created
        ? html`<${SecretOnce}
            id="chave-nova"
            title=${`Sua nova chave: ${created.name}`}
            value=${created.value}
            onDone=${() => setCreated(null)}
          />`
        : null
    }
    <${NewKey}
      onCreated=${(key) => {
        setCreated(key);
        state.reload();
      }}
    />
    <section aria-labelledby="lista-chaves">
      <h2 id="lista-chaves">Suas chaves</h2>
      <${Loading} state=${state}>
        ${(keys) =>
          html`<${Table}
            caption="Chaves de API"
            empty="Nenhuma chave ainda."
            rows=${keys}
            columns=${[
              { label: 'Nome', cell: (k) => html`<span id=${`chave-${k.id}`}>${k.name}</span>` },
              { label: 'Descrição', cell: (k) => k.description },
              { label: 'Prefixo', cell: (k) => html`<code>${k.prefix}</code>` },
              { label: 'Status', cell: (k) => html`<${Badge} status=${k.status} labels=${KEY_STATUS} />` },
              { label: 'Criada em', cell: (k) => dateTime(k.createdAt) },
              { label: 'Último uso', cell: (k) => (k.lastUsedAt ? dateTime(k.lastUsedAt) : 'Nunca') },
              {
                label: 'Ações',
                cell: (k) => (k.status === 'ACTIVE' ? html`<${Deactivate} apiKey=${k} onDone=${state.reload} />` : '—'),
              },
            ]}
          />`}
      <//>
    </section>
  <//>`;
}

function NewKey({ onCreated }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const result = await action.run(() => post('/v1/api-keys', { name, description }));
    if (result.ok) {
      setName('');
      setDescription('');
      onCreated(result.value.apiKey);
    }
  };
  return html`<section class="card" aria-labelledby="nova-chave">
    <h2 id="nova-chave">Nova chave</h2>
    <form onSubmit=${submit} class="grid-form">
      <${Field}
        id="chave-nome"
        label="Nome"
        required
        maxlength="100"
        value=${name}
        onInput=${(e) => setName(e.currentTarget.value)}
      />
      <${Field}
        id="chave-descricao"
        label="Descrição"
        required
        maxlength="255"
        value=${description}
        onInput=${(e) => setDescription(e.currentTarget.value)}
      />
      <div class="wide">
        <${ErrorNotice} error=${action.error} />
        <button class="button" type="submit" disabled=${action.busy}>Criar chave</button>
      </div>
    </form>
  </section>`;
}

function Deactivate({ apiKey, onDone }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const run = () => action.run(() => del(`/v1/api-keys/${encodeURIComponent(apiKey.id)}`)).then(onDone);
  if (!confirming)
    return html`<button
      type="button"
      class="button secondary small"
      aria-describedby=${`chave-${apiKey.id}`}
      onClick=${() => setConfirming(true)}
    >
      Desativar
    </button>`;
  return html`<span class="confirm">
    <button
      type="button"
      class="button danger small"
      aria-describedby=${`chave-${apiKey.id}`}
      onClick=${run}
      disabled=${action.busy}
    >
      Confirmar
    </button>
    <button type="button" class="button secondary small" onClick=${() => setConfirming(false)}>Cancelar</button>
    <${ErrorNotice} error=${action.error} />
  </span>`;
}
