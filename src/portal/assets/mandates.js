// Pix Automático: the mandates (autorizações) by status and payer, paged, and a new one (its journey's own fields). A mandate's
// page is mandate.js.
import { html, useState } from './lib.js';
import { get, query } from './api.js';
import { Badge, Field, Loading, Page, Pager, StatusFilter, Table, useLoad } from './ui.js';
import { FREQUENCY, MANDATE_STATUS, dateTime, money } from './format.js';
import { NewMandate } from './mandate-form.js';

const LIMIT = 20;

export function Mandates() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [customerDocument, setCustomerDocument] = useState('');
  const [draft, setDraft] = useState('');
  const state = useLoad(
    () => get(`/v1/mandates${query({ page, limit: LIMIT, status, customerDocument })}`),
    [page, status, customerDocument],
  );
  const search = (e) => {
    e.preventDefault();
    setCustomerDocument(draft.replace(/\D/g, ''));
    setPage(1);
  };
  return html`<${Page} title="Pix Automático">
    <p class="muted">
      Com uma autorização aprovada pelo pagador, você cobra cada período (semana, mês…) sem pedir um novo pagamento.
    </p>
    <${NewMandate} onCreated=${(mandate) => (location.hash = `#/pix-automatico/${mandate.id}`)} />
    <section aria-labelledby="lista-autorizacoes">
      <div class="section-head">
        <h2 id="lista-autorizacoes">Suas autorizações</h2>
        <form class="filters" onSubmit=${search} role="search" aria-label="Filtrar autorizações">
          <${Field}
            id="filtro-documento"
            label="Pagador (CPF ou CNPJ)"
            inputmode="numeric"
            autocomplete="off"
            value=${draft}
            onInput=${(e) => setDraft(e.currentTarget.value)}
          />
          <button type="submit" class="button secondary">Buscar</button>
        </form>
        <${StatusFilter}
          id="filtro-autorizacoes"
          value=${status}
          labels=${MANDATE_STATUS}
          onChange=${(v) => {
            setStatus(v);
            setPage(1);
          }}
        />
      </div>
      <${Loading} state=${state}>
        ${(data) =>
          html`<${Table}
              caption="Autorizações Pix Automático"
              empty="Nenhuma autorização."
              rows=${data.mandates}
              columns=${[
                { label: 'Criada em', cell: (m) => dateTime(m.createdAt) },
                {
                  label: 'Cliente',
                  cell: (m) => html`<a href=${`#/pix-automatico/${m.id}`}>${m.customer.name}</a>`,
                },
                { label: 'Objeto', cell: (m) => m.object || '—' },
                { label: 'Contrato', cell: (m) => m.contract },
                { label: 'Frequência', cell: (m) => FREQUENCY[m.frequency] ?? m.frequency },
                { label: 'Valor', num: true, cell: (m) => (m.amount != null ? money(m.amount) : 'Variável') },
                { label: 'Status', cell: (m) => html`<${Badge} status=${m.status} labels=${MANDATE_STATUS} />` },
              ]}
            />
            <${Pager} page=${page} limit=${LIMIT} total=${data.total} onPage=${setPage} label="autorizações" />`}
      <//>
    </section>
  <//>`;
}
