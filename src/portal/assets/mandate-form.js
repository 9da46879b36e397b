// Nova autorização: POST /v1/mandates with the contract's fields, and each journey's own: the first payment's amount
// (QR_WITH_PAYMENT), the due-date charge (DUE_DATE_QR), the payer's account (PUSH). Amounts typed in reais.
import { html, useRef, useState } from './lib.js';
import { get, idempotencyKey, post } from './api.js';
import { ErrorNotice, Field, Loading, useAction, useLoad } from './ui.js';
import { FREQUENCY, JOURNEY, RETRY_POLICY, day, money, parseMoney } from './format.js';

const EXPIRES_IN = [
  [3600, '1 hora'],
  [86400, '24 horas'],
  [604800, '7 dias'],
  [2592000, '30 dias'],
];

const EMPTY = {
  journey: 'QR',
  name: '',
  document: '',
  contract: '',
  object: '',
  frequency: 'MONTHLY',
  startDate: '',
  endDate: '',
  kind: 'FIXED',
  amount: '',
  minAmount: '',
  retryPolicy: 'NONE',
  expiresIn: '86400',
  firstPayment: '',
  chargeId: '',
  ispb: '',
  branch: '',
  account: '',
  payerDocument: '',
};

const digits = (s) => s.replace(/\D/g, '');

// The body the API reads, or a message naming what to fix before asking it.
function toBody(f) {
  const body = {
    journey: f.journey,
    customer: { name: f.name.trim(), document: digits(f.document) },
    contract: f.contract.trim(),
    object: f.object.trim(),
    frequency: f.frequency,
    startDate: f.startDate,
    retryPolicy: f.retryPolicy,
    expiresIn: Number(f.expiresIn),
  };
  if (f.endDate) body.endDate = f.endDate;
  if (f.kind === 'FIXED') {
    const amount = parseMoney(f.amount);
    if (!amount) return 'Informe o valor de cada cobrança em reais, por exemplo 49,90.';
    body.amount = amount;
  } else if (f.minAmount.trim()) {
    const minAmount = parseMoney(f.minAmount);
    if (!minAmount) return 'Informe o valor mínimo em reais, por exemplo 10,00, ou deixe em branco.';
    body.minAmount = minAmount;
  }
  if (f.journey === 'QR_WITH_PAYMENT') {
    const amount = parseMoney(f.firstPayment);
    if (!amount) return 'Informe o valor do primeiro pagamento em reais.';
    body.firstPayment = { amount };
  }
  if (f.journey === 'DUE_DATE_QR') body.chargeId = f.chargeId.trim();
  if (f.journey === 'PUSH')
    body.payerAccount = {
      ispb: digits(f.ispb),
      branch: digits(f.branch),
      account: digits(f.account),
      document: digits(f.payerDocument),
    };
  return body;
}

export function NewMandate({ onCreated }) {
  const [form, setForm] = useState(EMPTY);
  const [invalid, setInvalid] = useState(null);
  const key = useRef(idempotencyKey());
  const action = useAction();
  const set = (name) => (e) => {
    const value = e.currentTarget.value;
    setForm((f) => ({ ...f, [name]: value }));
  };
  const input = (id, name, label, extra = {}) =>
    html`<${Field} id=${id} label=${label} value=${form[name]} onInput=${set(name)} ...${extra} />`;
  const submit = async (e) => {
    e.preventDefault();
    const body = toBody(form);
    if (typeof body === 'string') return setInvalid({ message: body });
    setInvalid(null);
    const done = await action.run(() => post('/v1/mandates', body, key.current));
    if (done.ok) {
      key.current = idempotencyKey();
      onCreated(done.value.mandate);
    }
  };
  const select = (id, name, label, options) =>
    html`<${Field} id=${id} label=${label}>
      <select id=${id} value=${form[name]} onChange=${set(name)}>
        ${options.map(([v, text]) => html`<option value=${String(v)}>${text}</option>`)}
      </select>
    <//>`;
  return html`<details class="card form-card">
    <summary>Nova autorização</summary>
    <form onSubmit=${submit} class="stack">
      ${select('autorizacao-jornada', 'journey', 'Jornada', Object.entries(JOURNEY))}
      <fieldset class="group">
        <legend>Pagador</legend>
        <div class="grid-form">
          ${input('autorizacao-nome', 'name', 'Nome do pagador', { required: true, maxlength: '100' })}
          ${input('autorizacao-documento', 'document', 'CPF ou CNPJ do pagador', {
            required: true,
            inputmode: 'numeric',
            autocomplete: 'off',
          })}
        </div>
      </fieldset>
      <fieldset class="group">
        <legend>Contrato</legend>
        <div class="grid-form">
          ${input('autorizacao-contrato', 'contract', 'Número do contrato', { required: true, maxlength: '35' })}
          ${input('autorizacao-objeto', 'object', 'Objeto', {
            maxlength: '35',
            hint: 'O que é cobrado, como o pagador verá no banco (até 35 caracteres)',
          })}
          ${select('autorizacao-frequencia', 'frequency', 'Frequência', Object.entries(FREQUENCY))}
          ${select('autorizacao-tentativas', 'retryPolicy', 'Novas tentativas após recusa', Object.entries(RETRY_POLICY))}
          ${input('autorizacao-inicio', 'startDate', 'Início', { type: 'date', required: true })}
          ${input('autorizacao-termino', 'endDate', 'Término (opcional)', {
            type: 'date',
            hint: 'Em branco: sem data de término',
          })}
        </div>
      </fieldset>
      <fieldset class="group">
        <legend>Valor</legend>
        <div class="choices">
          <div class="check">
            <input
              type="radio"
              id="valor-fixo"
              name="tipo-valor"
              checked=${form.kind === 'FIXED'}
              onChange=${() => setForm((f) => ({ ...f, kind: 'FIXED' }))}
            />
            <label for="valor-fixo">Valor fixo</label>
          </div>
          <div class="check">
            <input
              type="radio"
              id="valor-variavel"
              name="tipo-valor"
              checked=${form.kind === 'VARIABLE'}
              onChange=${() => setForm((f) => ({ ...f, kind: 'VARIABLE' }))}
            />
            <label for="valor-variavel">Valor variável</label>
          </div>
        </div>
        ${
          form.kind === 'FIXED'
            ? input('autorizacao-valor', 'amount', 'Valor de cada cobrança (R$)', {
                required: true,
                inputmode: 'decimal',
                autocomplete: 'off',
              })
            : input('autorizacao-minimo', 'minAmount', 'Valor mínimo do limite do pagador (R$, opcional)', {
                inputmode: 'decimal',
                autocomplete: 'off',
                hint: 'O pagador define o valor máximo que aceita pagar; ele não pode ser menor que este',
              })
        }
      </fieldset>
      ${
        form.journey === 'QR_WITH_PAYMENT'
          ? input('autorizacao-primeiro', 'firstPayment', 'Valor do primeiro pagamento (R$)', {
              required: true,
              inputmode: 'decimal',
              autocomplete: 'off',
              hint: 'Pago pelo pagador junto com a aprovação',
            })
          : null
      }
      ${
        form.journey === 'DUE_DATE_QR'
          ? html`<${DueDateCharge}
              value=${form.chargeId}
              onChoose=${(charge) =>
                setForm((f) => ({
                  ...f,
                  chargeId: charge?.id ?? '',
                  ...(charge?.customer ? { name: charge.customer.name, document: charge.customer.document } : {}),
                }))}
            />`
          : null
      }
      ${
        form.journey === 'PUSH'
          ? html`<fieldset class="group">
              <legend>Conta do pagador</legend>
              <div class="grid-form">
                ${input('autorizacao-ispb', 'ispb', 'ISPB do banco', { required: true, inputmode: 'numeric' })}
                ${input('autorizacao-agencia', 'branch', 'Agência', { required: true, inputmode: 'numeric' })}
                ${input('autorizacao-conta', 'account', 'Conta', { required: true, inputmode: 'numeric' })}
                ${input('autorizacao-titular', 'payerDocument', 'CPF ou CNPJ do titular', {
                  required: true,
                  inputmode: 'numeric',
                })}
              </div>
            </fieldset>`
          : null
      }
      ${select('autorizacao-prazo', 'expiresIn', 'Prazo para o pagador aprovar', EXPIRES_IN)}
      <${ErrorNotice} error=${invalid ?? action.error} />
      <button class="button" type="submit" disabled=${action.busy}>Criar autorização</button>
    </form>
  </details>`;
}

// DUE_DATE_QR: the pending due-date charge paid with the approval (the latest 100); choosing it fills in its payer,
// who must be the mandate's.
function DueDateCharge({ value, onChoose }) {
  const state = useLoad(
    () => get('/v1/charges?status=PENDING&limit=100').then((r) => r.charges.filter((c) => c.type === 'DUE_DATE')),
    [],
  );
  return html`<${Loading} state=${state}>
    ${(charges) =>
      charges.length
        ? html`<${Field}
            id="autorizacao-cobranca"
            label="Cobrança com vencimento"
            hint="Paga pelo pagador junto com a aprovação; o pagador da autorização é o dessa cobrança"
          >
            <select
              id="autorizacao-cobranca"
              required
              aria-describedby="autorizacao-cobranca-hint"
              value=${value}
              onChange=${(e) => onChoose(charges.find((c) => c.id === e.currentTarget.value))}
            >
              <option value="">Escolha uma cobrança</option>
              ${charges.map(
                (c) =>
                  html`<option value=${c.id}>
                    ${
                      `${c.description || 'Sem descrição'} · ${money(c.amount)} · vence ${day(c.dueDate)}` +
                      (c.customer ? ` · ${c.customer.name}` : '')
                    }
                  </option>`,
              )}
            </select>
          <//>`
        : html`<p class="notice">
            Nenhuma cobrança com vencimento pendente. Crie uma pela API (<code>POST /v1/charges</code> com
            <code>dueDate</code> e <code>customer</code>) e volte aqui.
          </p>`}
  <//>`;
}
