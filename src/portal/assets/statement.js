// Extrato: the ledger movements of the merchant's balance, newest first, by period, paged; the same rows as CSV, as it
// is or for Brazilian spreadsheets.
import { html, useState } from './lib.js';
import { api, get, query } from './api.js';
import { ErrorNotice, Field, Loading, Page, Pager, Table, useAction, useLoad } from './ui.js';
import { ENTRY_TYPE, dateTime, money, signedMoney } from './format.js';

const LIMIT = 50;

export function Statement() {
  const [page, setPage] = useState(1);
  const [period, setPeriod] = useState({ from: '', to: '' });
  const [draft, setDraft] = useState(period);
  // days as the form gives them (YYYY-MM-DD): the API reads them as São Paulo days, `to` through its end
  const params = { from: period.from, to: period.to };
  const state = useLoad(
    () => get(`/v1/merchants/me/statement${query({ page, limit: LIMIT, ...params })}`),
    [page, period],
  );
  const csv = useAction();
  // the CSV as it is, or for Brazilian spreadsheets (locale=pt-BR: `;`, a decimal comma, its byte order mark kept)
  const download = (locale) =>
    csv.run(async () => {
      const file = await api('GET', `/v1/merchants/me/statement${query({ format: 'csv', locale, ...params })}`, {
        accept: 'text/csv',
        blob: true,
      });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([file], { type: 'text/csv' }));
      link.download = locale ? 'extrato-pt-BR.csv' : 'extrato.csv';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    });
  return html`<${Page} title="Extrato">
    <form
      class="filters"
      onSubmit=${(e) => {
        e.preventDefault();
        setPage(1);
        setPeriod(draft);
      }}
    >
      <${Field}
        id="extrato-de"
        label="De"
        type="date"
        value=${draft.from}
        onInput=${(e) => setDraft({ ...draft, from: e.currentTarget.value })}
      />
      <${Field}
        id="extrato-ate"
        label="Até"
        type="date"
        value=${draft.to}
        onInput=${(e) => setDraft({ ...draft, to: e.currentTarget.value })}
      />
      <button class="button secondary" type="submit">Filtrar</button>
      <button class="button secondary" type="button" onClick=${() => download()} disabled=${csv.busy}>
        Baixar CSV
      </button>
      <button class="button secondary" type="button" onClick=${() => download('pt-BR')} disabled=${csv.busy}>
        Baixar CSV (Excel/planilha pt-BR)
      </button>
    </form>
    <${ErrorNotice} error=${csv.error} />
    <${Loading} state=${state}>
      ${(data) =>
        html`<${Table}
            caption="Movimentações do saldo"
            empty="Nenhuma movimentação no período."
            rows=${data.entries}
            columns=${[
              { label: 'Data', cell: (e) => dateTime(e.createdAt) },
              { label: 'Tipo', cell: (e) => ENTRY_TYPE[e.type] ?? e.type },
              {
                label: 'Valor',
                num: true,
                cell: (e) => html`<span class=${e.amount < 0 ? 'debit' : 'credit'}>${signedMoney(e.amount)}</span>`,
              },
              { label: 'Saldo após', num: true, cell: (e) => money(e.balanceAfter) },
              { label: 'Referência', cell: reference },
            ]}
          />
          <${Pager} page=${page} limit=${LIMIT} total=${data.total} onPage=${setPage} label="extrato" />`}
    <//>
  <//>`;
}

// what the movement is about: the charge links to its page, a recurring charge to its mandate's
function reference(e) {
  if (e.chargeId) return html`<a href=${`#/cobrancas/${e.chargeId}`}>Ver cobrança</a>`;
  if (e.recurringChargeId)
    return html`<a href=${`#/pix-automatico/cobranca/${e.recurringChargeId}`}>Ver cobrança recorrente</a>`;
  if (e.withdrawalId) return html`<a href="#/saques">Ver saques</a>`;
  if (e.infractionId) return 'Infração (MED)';
  return '—';
}
