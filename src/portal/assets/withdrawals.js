// Saques: a new withdrawal (a PIX transfer out of the available balance) and the list, followed while any is in
// progress.
import { html, useRef, useState } from './lib.js';
import { get, idempotencyKey, post, query } from './api.js';
import {
  Badge,
  ErrorNotice,
  Field,
  Loading,
  Page,
  Pager,
  Success,
  Table,
  useAction,
  useLoad,
  usePolling,
} from './ui.js';
import { PIX_KEY_TYPES, WITHDRAWAL_STATUS, dateTime, money, parseMoney } from './format.js';

const LIMIT = 20;

export function Withdrawals() {
  const [page, setPage] = useState(1);
  const state = useLoad(async () => {
    const [list, balance] = await Promise.all([
      get(`/v1/merchants/me/withdrawals${query({ page, limit: LIMIT })}`),
      get('/v1/merchants/me/balance'),
    ]);
    return { list, balance };
  }, [page]);
  usePolling(!!state.data?.list.withdrawals.some((w) => w.status === 'PROCESSING'), state.reload, 2000);
  return html`<${Page} title="Saques">
    <${Loading} state=${state}>
      ${({ list, balance }) =>
        html`<${NewWithdrawal} available=${balance.available} onCreated=${state.reload} />
          <section aria-labelledby="lista-saques">
            <h2 id="lista-saques">Seus saques</h2>
            <${Table}
              caption="Saques"
              empty="Nenhum saque ainda."
              rows=${list.withdrawals}
              columns=${[
                { label: 'Pedido em', cell: (w) => dateTime(w.createdAt) },
                { label: 'Valor', num: true, cell: (w) => money(w.amount) },
                { label: 'Chave PIX', cell: (w) => html`<span class="code-inline">${w.pixKey}</span>` },
                { label: 'Descrição', cell: (w) => w.description || '—' },
                { label: 'Status', cell: (w) => html`<${Badge} status=${w.status} labels=${WITHDRAWAL_STATUS} />` },
              ]}
            />
            <${Pager} page=${page} limit=${LIMIT} total=${list.total} onPage=${setPage} label="saques" />
          </section>`}
    <//>
  <//>`;
}

function NewWithdrawal({ available, onCreated }) {
  const [amount, setAmount] = useState('');
  const [pixKey, setPixKey] = useState('');
  const [pixKeyType, setPixKeyType] = useState('EMAIL');
  const [description, setDescription] = useState('');
  const [invalid, setInvalid] = useState(null);
  const [done, setDone] = useState(null);
  const key = useRef(idempotencyKey());
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const centavos = parseMoney(amount);
    if (!centavos) return setInvalid({ message: 'Informe o valor em reais, por exemplo 10,50.' });
    setInvalid(null);
    setDone(null);
    const body = { amount: centavos, pixKey: pixKey.trim(), pixKeyType };
    if (description.trim()) body.description = description.trim();
    const result = await action.run(() => post('/v1/merchants/me/withdrawals', body, key.current));
    if (result.ok) {
      key.current = idempotencyKey();
      setDone(`Saque de ${money(centavos)} solicitado.`);
      setAmount('');
      onCreated();
    }
  };
  return html`<section class="card" aria-labelledby="novo-saque">
    <h2 id="novo-saque">Novo saque</h2>
    <p class="muted">Saldo disponível: <strong>${money(available)}</strong></p>
    <form onSubmit=${submit} class="grid-form">
      <${Field}
        id="saque-valor"
        label="Valor (R$)"
        inputmode="decimal"
        autocomplete="off"
        required
        value=${amount}
        onInput=${(e) => setAmount(e.currentTarget.value)}
      />
      <${Field} id="saque-tipo" label="Tipo de chave">
        <select id="saque-tipo" value=${pixKeyType} onChange=${(e) => setPixKeyType(e.currentTarget.value)}>
          ${PIX_KEY_TYPES.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
        </select>
      <//>
      <${Field}
        id="saque-chave"
        label="Chave PIX de destino"
        autocomplete="off"
        required
        value=${pixKey}
        onInput=${(e) => setPixKey(e.currentTarget.value)}
      />
      <${Field}
        id="saque-descricao"
        label="Descrição (opcional)"
        maxlength="255"
        value=${description}
        onInput=${(e) => setDescription(e.currentTarget.value)}
      />
      <div class="wide">
        <${ErrorNotice} error=${invalid ?? action.error} />
        <${Success}>${done}<//>
        <button class="button" type="submit" disabled=${action.busy}>Solicitar saque</button>
      </div>
    </form>
  </section>`;
}
