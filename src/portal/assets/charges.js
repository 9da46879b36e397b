// Cobranças: the list (by status, paged), a new charge, and a charge's detail with its QR code, its refunds and
// `Reembolsar` (all or part of what is still refundable); in the sandbox, `Simular pagamento` on a pending one.
import { html, useRef, useState } from './lib.js';
import { get, idempotencyKey, post, query, sandbox } from './api.js';
import {
  Badge,
  CopyButton,
  ErrorNotice,
  Field,
  Loading,
  Page,
  Pager,
  StatusFilter,
  Success,
  Table,
  lazy,
  useAction,
  useLoad,
  usePolling,
} from './ui.js';
import { CHARGE_STATUS, REFUND_STATUS, dateTime, money, moneyInput, parseMoney } from './format.js';

const LIMIT = 20;
const SimulatePayment = lazy(() => import('./sandbox.js'), 'SimulatePayment');

export function Charges() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const state = useLoad(() => get(`/v1/charges${query({ page, limit: LIMIT, status })}`), [page, status]);
  return html`<${Page} title="Cobranças">
    <${NewCharge} onCreated=${(charge) => (location.hash = `#/cobrancas/${charge.id}`)} />
    <section aria-labelledby="lista-cobrancas">
      <div class="section-head">
        <h2 id="lista-cobrancas">Suas cobranças</h2>
        <${StatusFilter}
          id="filtro-status"
          value=${status}
          labels=${CHARGE_STATUS}
          onChange=${(v) => {
            setStatus(v);
            setPage(1);
          }}
        />
      </div>
      <${Loading} state=${state}>
        ${(data) =>
          html`<${Table}
              caption="Cobranças"
              empty="Nenhuma cobrança ainda."
              rows=${data.charges}
              columns=${[
                { label: 'Criada em', cell: (c) => dateTime(c.createdAt) },
                {
                  label: 'Descrição',
                  cell: (c) => html`<a href=${`#/cobrancas/${c.id}`}>${c.description || 'Sem descrição'}</a>`,
                },
                { label: 'Valor', num: true, cell: (c) => money(c.amount) },
                { label: 'Status', cell: (c) => html`<${Badge} status=${c.status} labels=${CHARGE_STATUS} />` },
              ]}
            />
            <${Pager} page=${page} limit=${LIMIT} total=${data.total} onPage=${setPage} label="cobranças" />`}
      <//>
    </section>
  <//>`;
}

function NewCharge({ onCreated }) {
  const [amount, setAmount] = useState('');
  const [description, setDescription] = useState('');
  const [invalid, setInvalid] = useState(null);
  const key = useRef(idempotencyKey());
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const centavos = parseMoney(amount);
    if (!centavos) return setInvalid({ message: 'Informe o valor em reais, por exemplo 10,50.' });
    setInvalid(null);
    const done = await action.run(() => post('/v1/charges', { amount: centavos, description }, key.current));
    if (done.ok) {
      key.current = idempotencyKey();
      onCreated(done.value.charge);
    }
  };
  return html`<details class="card form-card">
    <summary>Nova cobrança</summary>
    <form onSubmit=${submit} class="stack">
      <${Field}
        id="cobranca-valor"
        label="Valor (R$)"
        inputmode="decimal"
        autocomplete="off"
        required
        value=${amount}
        hint="Por exemplo 10,50"
        onInput=${(e) => setAmount(e.currentTarget.value)}
      />
      <${Field}
        id="cobranca-descricao"
        label="Descrição"
        required
        maxlength="140"
        value=${description}
        onInput=${(e) => setDescription(e.currentTarget.value)}
      />
      <${ErrorNotice} error=${invalid ?? action.error} />
      <button class="button" type="submit" disabled=${action.busy}>Criar cobrança</button>
    </form>
  </details>`;
}

export function ChargeDetail({ id }) {
  const state = useLoad(async () => {
    const [{ charge }, { refunds }] = await Promise.all([
      get(`/v1/charges/${encodeURIComponent(id)}`),
      get(`/v1/charges/${encodeURIComponent(id)}/refunds`),
    ]);
    return { charge, refunds };
  }, [id]);
  const data = state.data;
  // a charge waiting for its payment, or a refund in progress, changes by itself: follow it
  const moving = !!data && (data.charge.status === 'PENDING' || data.refunds.some((r) => r.status === 'PROCESSING'));
  usePolling(moving, state.reload, 2000);
  return html`<${Page} title="Cobrança" actions=${html`<a href="#/cobrancas">Voltar às cobranças</a>`}>
    <${Loading} state=${state}>
      ${({ charge, refunds }) =>
        html`<div class="detail">
          <section class="card" aria-labelledby="resumo">
            <h2 id="resumo">${charge.description || 'Sem descrição'}</h2>
            <p class="big">${money(charge.amount)}</p>
            <p><${Badge} status=${charge.status} labels=${CHARGE_STATUS} /></p>
            <dl class="facts">
              <div>
                <dt>Criada em</dt>
                <dd>${dateTime(charge.createdAt)}</dd>
              </div>
              ${
                charge.paidAt
                  ? html`<div>
                      <dt>Paga em</dt>
                      <dd>${dateTime(charge.paidAt)}</dd>
                    </div>`
                  : null
              }
              ${
                charge.paidAmount != null
                  ? html`<div>
                      <dt>Valor pago</dt>
                      <dd>${money(charge.paidAmount)}</dd>
                    </div>`
                  : null
              }
              ${
                charge.fee != null
                  ? html`<div>
                      <dt>Tarifa</dt>
                      <dd>${money(charge.fee)}</dd>
                    </div>`
                  : null
              }
              ${
                charge.refundedAmount
                  ? html`<div>
                      <dt>Reembolsado</dt>
                      <dd>${money(charge.refundedAmount)}</dd>
                    </div>`
                  : null
              }
              ${
                charge.dueDate
                  ? html`<div>
                      <dt>Vencimento</dt>
                      <dd>${charge.dueDate.split('-').reverse().join('/')}</dd>
                    </div>`
                  : null
              }
              ${
                charge.customer
                  ? html`<div>
                      <dt>Cliente</dt>
                      <dd>${charge.customer.name}</dd>
                    </div>`
                  : null
              }
              <div>
                <dt>txid</dt>
                <dd class="code-inline">${charge.txid}</dd>
              </div>
              <div>
                <dt>Página de pagamento</dt>
                <dd><a href=${charge.paymentUrl} target="_blank" rel="noopener">Abrir a página do pagador</a></dd>
              </div>
            </dl>
          </section>
          ${charge.status === 'PENDING' ? html`<${Payable} charge=${charge} />` : null}
          ${charge.status === 'PENDING' && sandbox ? html`<${SimulatePayment} charge=${charge} />` : null}
          ${charge.status === 'PAID' ? html`<${Refund} charge=${charge} refunds=${refunds} onDone=${state.reload} />` : null}
          <section class="card" aria-labelledby="reembolsos">
            <h2 id="reembolsos">Reembolsos</h2>
            <${Table}
              caption="Reembolsos desta cobrança"
              empty="Nenhum reembolso."
              rows=${refunds}
              columns=${[
                { label: 'Pedido em', cell: (r) => dateTime(r.createdAt) },
                { label: 'Valor', num: true, cell: (r) => money(r.amount) },
                { label: 'Motivo', cell: (r) => r.reason || '—' },
                { label: 'Status', cell: (r) => html`<${Badge} status=${r.status} labels=${REFUND_STATUS} />` },
              ]}
            />
          </section>
        </div>`}
    <//>
  <//>`;
}

// A pending charge: its QR code and copy-and-paste code, as the payer sees them.
function Payable({ charge }) {
  return html`<section class="card payable" aria-labelledby="qr">
    <h2 id="qr">QR Code</h2>
    ${
      charge.imageBase64
        ? html`<img
            class="qr"
            src=${charge.imageBase64}
            width="240"
            height="240"
            alt=${`QR Code PIX de ${money(charge.amount)}`}
          />`
        : null
    }
    <label for="copia-e-cola">PIX copia e cola</label>
    <textarea id="copia-e-cola" class="code" readonly rows="4">${charge.qrCode}</textarea>
    <${CopyButton} value=${charge.qrCode} target="copia-e-cola" />
  </section>`;
}

function Refund({ charge, refunds, onDone }) {
  const paid = charge.paidAmount ?? charge.amount;
  const taken = refunds.filter((r) => r.status !== 'FAILED').reduce((sum, r) => sum + r.amount, 0);
  const left = Math.max(0, paid - taken);
  const [amount, setAmount] = useState(moneyInput(left));
  const [reason, setReason] = useState('');
  const [invalid, setInvalid] = useState(null);
  const [done, setDone] = useState(null);
  const key = useRef(idempotencyKey());
  const action = useAction();
  if (left === 0) return null;
  const submit = async (e) => {
    e.preventDefault();
    const centavos = parseMoney(amount);
    if (!centavos) return setInvalid({ message: 'Informe o valor a reembolsar, por exemplo 10,50.' });
    if (centavos > left) return setInvalid({ message: `O máximo que ainda pode ser reembolsado é ${money(left)}.` });
    setInvalid(null);
    const body = { amount: centavos, ...(reason.trim() ? { reason: reason.trim() } : {}) };
    const result = await action.run(() =>
      post(`/v1/charges/${encodeURIComponent(charge.id)}/refunds`, body, key.current),
    );
    if (result.ok) {
      key.current = idempotencyKey();
      setDone(`Reembolso de ${money(centavos)} solicitado.`);
      setAmount(moneyInput(Math.max(0, left - centavos)));
      onDone();
    }
  };
  return html`<section class="card" aria-labelledby="reembolsar">
    <h2 id="reembolsar">Reembolsar</h2>
    <p class="muted">Ainda pode ser reembolsado: ${money(left)}. Você pode devolver tudo ou só uma parte.</p>
    <form onSubmit=${submit} class="stack">
      <${Field}
        id="reembolso-valor"
        label="Valor do reembolso (R$)"
        inputmode="decimal"
        autocomplete="off"
        required
        value=${amount}
        onInput=${(e) => setAmount(e.currentTarget.value)}
      />
      <${Field}
        id="reembolso-motivo"
        label="Motivo (opcional)"
        maxlength="140"
        value=${reason}
        onInput=${(e) => setReason(e.currentTarget.value)}
      />
      <${ErrorNotice} error=${invalid ?? action.error} />
      <${Success}>${done}<//>
      <button class="button" type="submit" disabled=${action.busy}>Reembolsar</button>
    </form>
  </section>`;
}
