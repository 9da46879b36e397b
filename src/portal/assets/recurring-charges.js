// A mandate's recurring charges (one per cycle) with their attempts: a new one while the mandate is approved,
// `Cancelar` on one still scheduled whose due date is after today (the API refuses it on or after that day), and
// `Nova tentativa` after a refused attempt when the mandate allows retries (up to 3, within 7 days of the due date),
// and `Reembolsar` on a paid one (recurring-refund.js).
import { html, useRef, useState } from './lib.js';
import { get, idempotencyKey, patch, post, query } from './api.js';
import { Badge, ErrorNotice, Field, Loading, Pager, Success, Table, useAction, useLoad, usePolling } from './ui.js';
import { RefundRecurring, refundable } from './recurring-refund.js';
import {
  ATTEMPT_KIND,
  ATTEMPT_STATUS,
  RECURRING_CHARGE_STATUS,
  day,
  dayPlus,
  money,
  moneyInput,
  parseMoney,
  todaySaoPaulo,
} from './format.js';

const LIMIT = 20;
const OPEN = ['CREATED', 'ACTIVE'];

export function RecurringCharges({ mandate }) {
  const [page, setPage] = useState(1);
  const state = useLoad(
    () => get(`/v1/recurring-charges${query({ mandateId: mandate.id, page, limit: LIMIT })}`),
    [mandate.id, mandate.status, page],
  );
  // refunds asked here, followed until the charge shows them: { [id]: refundedAmount expected }
  const [refunding, setRefunding] = useState({});
  const [refunded, setRefunded] = useState(null);
  const charges = state.data?.recurringCharges ?? [];
  const waiting = charges.some((c) => refunding[c.id] != null && c.refundedAmount < refunding[c.id]);
  // one sent to the payer's PSP and not yet scheduled there changes by itself, and so does a refund asked here
  usePolling(waiting || charges.some((c) => c.status === 'CREATED'), state.reload, 2000);
  const onRefund = (c, centavos) => {
    setRefunding((r) => ({ ...r, [c.id]: c.refundedAmount + centavos }));
    setRefunded(`Reembolso de ${money(centavos)} solicitado.`);
    state.reload();
  };
  const today = todaySaoPaulo();
  return html`<section class="recurring" aria-labelledby="cobrancas-recorrentes">
    <h2 id="cobrancas-recorrentes">Cobranças recorrentes</h2>
    ${mandate.status === 'APPROVED' ? html`<${NewRecurringCharge} mandate=${mandate} onCreated=${state.reload} />` : null}
    <${Success}>${refunded}<//>
    <${Loading} state=${state}>
      ${(data) =>
        html`<${Table}
            caption="Cobranças recorrentes desta autorização"
            empty="Nenhuma cobrança recorrente."
            rows=${data.recurringCharges}
            columns=${[
              { label: 'Período', num: true, cell: (c) => c.cycle + 1 },
              { label: 'Vencimento', cell: (c) => html`<span id=${`vencimento-${c.id}`}>${day(c.dueDate)}</span>` },
              {
                label: 'Valor',
                num: true,
                cell: (c) =>
                  c.refundedAmount
                    ? html`${money(c.amount)}<br /><span class="hint">reembolsado ${money(c.refundedAmount)}</span>`
                    : money(c.amount),
              },
              { label: 'Descrição', cell: (c) => c.description || '—' },
              {
                label: 'Status',
                cell: (c) => html`<${Badge} status=${c.status} labels=${RECURRING_CHARGE_STATUS} />`,
              },
              { label: 'Tentativas', cell: (c) => html`<${Attempts} charge=${c} />` },
              {
                label: 'Ações',
                cell: (c) => {
                  const cancel = OPEN.includes(c.status) && c.dueDate > today;
                  const retry = canRetry(mandate, c, today);
                  const refund = refundable(c) > 0;
                  if (!cancel && !retry && !refund) return '—';
                  return html`${cancel ? html`<${CancelCharge} charge=${c} onDone=${state.reload} />` : null}
                  ${retry ? html`<${Retry} charge=${c} today=${today} onDone=${state.reload} />` : null}
                  ${refund ? html`<${RefundRecurring} charge=${c} onRequested=${onRefund} />` : null}`;
                },
              },
            ]}
          />
          <${Pager} page=${page} limit=${LIMIT} total=${data.total} onPage=${setPage} label="cobranças recorrentes" />`}
    <//>
  </section>`;
}

function Attempts({ charge }) {
  if (!charge.attempts.length) return '—';
  return html`<ul class="attempts">
    ${charge.attempts.map(
      (a) =>
        html`<li>
          ${day(a.date)} · ${ATTEMPT_KIND[a.kind] ?? a.kind}${' '}
          <${Badge} status=${a.status} labels=${ATTEMPT_STATUS} />${a.failureCode ? ` (${a.failureCode})` : ''}
        </li>`,
    )}
  </ul>`;
}

// The API's rules, so the button shows only where it can work: the last attempt refused, none scheduled, retries
// left, and a day still open in [dueDate + 1, dueDate + 7] from tomorrow on.
function canRetry(mandate, c, today) {
  const last = c.attempts[c.attempts.length - 1];
  return (
    mandate.retryPolicy === 'THREE_IN_SEVEN_DAYS' &&
    c.status === 'ACTIVE' &&
    c.retriesLeft > 0 &&
    last?.status === 'REJECTED' &&
    !c.attempts.some((a) => a.status === 'SCHEDULED') &&
    dayPlus(c.dueDate, 7) > today
  );
}

function Retry({ charge, today, onDone }) {
  const first = [dayPlus(charge.dueDate, 1), dayPlus(today, 1)].sort()[1];
  const [open, setOpen] = useState(false);
  const [date, setDate] = useState(first);
  const key = useRef(idempotencyKey());
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const result = await action.run(() =>
      post(`/v1/recurring-charges/${encodeURIComponent(charge.id)}/retries`, { date }, key.current),
    );
    if (result.ok) {
      key.current = idempotencyKey();
      setOpen(false);
      onDone();
    }
  };
  const id = `tentativa-${charge.id}`;
  if (!open)
    return html`<button
      type="button"
      class="button secondary small"
      aria-describedby=${`vencimento-${charge.id}`}
      onClick=${() => setOpen(true)}
    >
      Nova tentativa
    </button>`;
  return html`<form class="stack" onSubmit=${submit}>
    <${Field}
      id=${id}
      label="Data da nova tentativa"
      type="date"
      required
      min=${first}
      max=${dayPlus(charge.dueDate, 7)}
      value=${date}
      onInput=${(e) => setDate(e.currentTarget.value)}
    />
    <div class="confirm">
      <button type="submit" class="button small" disabled=${action.busy}>Agendar tentativa</button>
      <button type="button" class="button secondary small" onClick=${() => setOpen(false)}>Voltar</button>
    </div>
    <${ErrorNotice} error=${action.error} />
  </form>`;
}

function CancelCharge({ charge, onDone }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const cancel = async () => {
    const result = await action.run(() =>
      patch(`/v1/recurring-charges/${encodeURIComponent(charge.id)}`, { status: 'CANCELED' }),
    );
    if (result.ok) onDone();
  };
  const described = `vencimento-${charge.id}`;
  return html`<div class="row-actions">
    ${
      confirming
        ? html`<span class="confirm" role="group" aria-label=${`Cancelar a cobrança de ${day(charge.dueDate)}?`}>
            <button type="button" class="button danger small" onClick=${cancel} disabled=${action.busy}>
              Confirmar cancelamento
            </button>
            <button type="button" class="button secondary small" onClick=${() => setConfirming(false)}>Voltar</button>
          </span>`
        : html`<button
            type="button"
            class="button secondary small"
            aria-describedby=${described}
            onClick=${() => setConfirming(true)}
          >
            Cancelar
          </button>`
    }
    <${ErrorNotice} error=${action.error} />
  </div>`;
}

function NewRecurringCharge({ mandate, onCreated }) {
  const [dueDate, setDueDate] = useState('');
  const [amount, setAmount] = useState(mandate.amount != null ? moneyInput(mandate.amount) : '');
  const [description, setDescription] = useState('');
  const [invalid, setInvalid] = useState(null);
  const [done, setDone] = useState(null);
  const key = useRef(idempotencyKey());
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    setDone(null);
    const centavos = parseMoney(amount);
    if (!centavos) return setInvalid({ message: 'Informe o valor em reais, por exemplo 49,90.' });
    setInvalid(null);
    const body = { dueDate, amount: centavos, ...(description.trim() ? { description: description.trim() } : {}) };
    const result = await action.run(() =>
      post(`/v1/mandates/${encodeURIComponent(mandate.id)}/charges`, body, key.current),
    );
    if (result.ok) {
      key.current = idempotencyKey();
      setDone(`Cobrança de ${money(centavos)} com vencimento em ${day(dueDate)} criada.`);
      setDescription('');
      onCreated();
    }
  };
  return html`<details class="card form-card">
    <summary>Nova cobrança recorrente</summary>
    <p class="hint">O vencimento deve estar entre 2 e 10 dias a partir de hoje; uma cobrança por período.</p>
    <form onSubmit=${submit} class="stack">
      <div class="grid-form">
        <${Field}
          id="recorrente-vencimento"
          label="Vencimento"
          type="date"
          required
          value=${dueDate}
          onInput=${(e) => setDueDate(e.currentTarget.value)}
        />
        <${Field}
          id="recorrente-valor"
          label="Valor (R$)"
          inputmode="decimal"
          autocomplete="off"
          required
          readonly=${mandate.amount != null}
          hint=${mandate.amount != null ? 'O valor fixo da autorização' : undefined}
          value=${amount}
          onInput=${(e) => setAmount(e.currentTarget.value)}
        />
        <div class="wide">
          <${Field}
            id="recorrente-descricao"
            label="Descrição (opcional)"
            maxlength="140"
            value=${description}
            onInput=${(e) => setDescription(e.currentTarget.value)}
          />
        </div>
      </div>
      <${ErrorNotice} error=${invalid ?? action.error} />
      <${Success}>${done}<//>
      <button class="button" type="submit" disabled=${action.busy}>Criar cobrança recorrente</button>
    </form>
  </details>`;
}
