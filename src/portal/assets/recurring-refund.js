// `Reembolsar` on a paid recurring charge: all that is left or a part, with an optional reason, as a charge's refund
// (POST /v1/recurring-charges/<id>/refunds; the refund completes by itself, and the row follows it).
import { html, useRef, useState } from './lib.js';
import { idempotencyKey, post } from './api.js';
import { ErrorNotice, Field, useAction } from './ui.js';
import { day, money, moneyInput, parseMoney } from './format.js';

export const refundable = (c) => (c.status === 'PAID' ? Math.max(0, (c.paidAmount ?? c.amount) - c.refundedAmount) : 0);

export function RefundRecurring({ charge, onRequested }) {
  const left = refundable(charge);
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState(moneyInput(left));
  const [invalid, setInvalid] = useState(null);
  const key = useRef(idempotencyKey());
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const centavos = parseMoney(amount);
    if (!centavos) return setInvalid({ message: 'Informe o valor a reembolsar, por exemplo 10,50.' });
    if (centavos > left) return setInvalid({ message: `O máximo que ainda pode ser reembolsado é ${money(left)}.` });
    setInvalid(null);
    const result = await action.run(() =>
      post(`/v1/recurring-charges/${encodeURIComponent(charge.id)}/refunds`, { amount: centavos }, key.current),
    );
    if (result.ok) {
      key.current = idempotencyKey();
      setOpen(false);
      onRequested(charge, centavos);
    }
  };
  if (!open)
    return html`<button
      type="button"
      class="button secondary small"
      aria-describedby=${`vencimento-${charge.id}`}
      onClick=${() => {
        setAmount(moneyInput(left));
        setOpen(true);
      }}
    >
      Reembolsar
    </button>`;
  return html`<form class="stack" onSubmit=${submit} aria-label=${`Reembolsar a cobrança de ${day(charge.dueDate)}`}>
    <${Field}
      id=${`reembolso-${charge.id}`}
      label="Valor do reembolso (R$)"
      inputmode="decimal"
      autocomplete="off"
      required
      value=${amount}
      onInput=${(e) => setAmount(e.currentTarget.value)}
    />
    <div class="confirm">
      <button type="submit" class="button small" disabled=${action.busy}>Confirmar reembolso</button>
      <button type="button" class="button secondary small" onClick=${() => setOpen(false)}>Voltar</button>
    </div>
    <${ErrorNotice} error=${invalid ?? action.error} />
  </form>`;
}
