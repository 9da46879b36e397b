// The API's view of a charge: one mapping for the entity, the values just inserted and raw rows (settlement, refund,
// listing). The refund a charge shows is viewed by src/refunds (refunds.view.ts).
import { qrPngDataUrl } from '../pix/qr-png.ts';
import { payerText } from '../pix/text.ts';
import type { ICharge } from './charge.entity.ts';
import { platformFee } from '../money/money.ts';
import { amountDueOn, type Components, type DueDateTerms } from '../money/due-date-amounts.ts';
import { saoPauloDate } from './due-date.ts';
import type { ICustomer } from './customer.entity.ts';
import { asInputs, pendingSplits } from '../money/splits.ts';
import type { ChargeRow } from './charge-row.ts';
import type { LocationRow } from './charges.sql.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const date = (v: string | null) => (v === null ? null : new Date(v));

// publicBaseUrl: where the payer's page is (`paymentUrl`, <PUBLIC_BASE_URL>/pay/<id>); today: the São Paulo date
// `amountDue` is for (a PENDING due-date charge), the wall clock's when not given.
export type ChargeViewOptions = { publicBaseUrl: string; image?: boolean; tracking?: boolean; today?: string };

type DueDateView =
  | 'type'
  | 'dueDate'
  | 'validityAfterDueDays'
  | 'rebate'
  | 'discount'
  | 'fine'
  | 'interest'
  | 'paidAmount'
  | 'components'
  | 'splits';

// What a view needs: an entity or the plain values just inserted.
export type ChargeFields = Pick<
  ICharge,
  'id' | 'txid' | 'qrCode' | 'amount' | 'fee' | 'status' | 'description' | 'expiresIn' | 'createdAt' | 'expiresAt'
> &
  Partial<
    Pick<ICharge, 'tracking' | 'endToEndId' | 'paidAt' | 'canceledAt' | 'refundedAt' | 'refundedAmount' | 'payerName'>
  > &
  Partial<Pick<ICharge, DueDateView>>;

// jsonb stores an object's keys in its own order (shortest first): a view gives them in the contract's order.
const modeFirst = <T extends { mode: string }>(t: T | null | undefined): T | null => {
  if (!t) return null;
  const { mode, ...rest } = t;
  return { mode, ...rest } as unknown as T;
};
const inOrder = ({ original, rebate, discount, fine, interest, final }: Components): Components => ({
  original,
  rebate,
  discount,
  fine,
  interest,
  final,
});

// The terms of a due-date charge, for the amount due by day; null for an immediate charge.
export function dueTermsOf(
  c: Pick<ChargeFields, 'type' | 'dueDate' | 'amount' | 'rebate' | 'discount' | 'fine' | 'interest'>,
): DueDateTerms | null {
  if (c.type !== 'DUE_DATE' || !c.dueDate) return null;
  const { rebate, discount, fine, interest } = c;
  return {
    original: c.amount,
    dueDate: c.dueDate,
    rebate: rebate ?? null,
    discount: discount ?? null,
    fine: fine ?? null,
    interest: interest ?? null,
  };
}

// The same, of a charges row read with plain SQL.
export const dueTermsOfRow = ({ type, due_date, amount, rebate, discount, fine, interest }: ChargeRow) =>
  dueTermsOf({ type, dueDate: due_date, amount, rebate, discount, fine, interest });

// What a payment today must be: a PENDING charge's amount, or its amount due today (due date); null once not PENDING.
function amountDue(c: ChargeFields, today: string | undefined): number | null {
  if (c.status !== 'PENDING') return null;
  const terms = dueTermsOf(c);
  return terms ? amountDueOn(terms, today ?? saoPauloDate(new Date())).final : c.amount;
}

// The payer's page of a charge (GET /pay/:id), the link a merchant sends.
export const paymentUrl = (publicBaseUrl: string, id: string) => `${publicBaseUrl}/pay/${id}`;

// The charge as the API returns it. Lists and webhook payloads leave out the image (it is derived from qrCode).
export function chargeView(
  c: ChargeFields,
  customer: Pick<ICustomer, 'id' | 'name' | 'document'> | null,
  opts: ChargeViewOptions,
) {
  // paid: what the payer paid (a due-date charge: the amount due on the payment's day); the fee is then on it
  const paidAmount = c.paidAt ? (c.paidAmount ?? c.amount) : null;
  return {
    id: c.id,
    txid: c.txid,
    type: c.type ?? 'IMMEDIATE',
    qrCode: c.qrCode,
    ...(opts.image ? { imageBase64: qrPngDataUrl(c.qrCode) } : {}),
    paymentUrl: paymentUrl(opts.publicBaseUrl, c.id),
    amount: c.amount,
    amountDue: amountDue(c, opts.today),
    paidAmount,
    fee: c.fee,
    netAmount: (paidAmount ?? c.amount) - c.fee,
    status: c.status,
    description: c.description,
    expiresIn: c.expiresIn,
    dueDate: c.dueDate ?? null,
    validityAfterDueDays: c.validityAfterDueDays ?? null,
    rebate: modeFirst(c.rebate),
    discount: modeFirst(c.discount),
    fine: modeFirst(c.fine),
    interest: modeFirst(c.interest),
    components: c.components ? inOrder(c.components) : null,
    // each recipient's share of the net amount: null while it waits for the payment (a due-date charge's bps split)
    splits: (c.splits ?? []).map((x) => ({ merchantId: x.merchantId, amount: x.amount, bps: x.bps })),
    // the name this charge was created with, not the customer's latest
    customer: customer ? { id: customer.id, name: c.payerName ?? customer.name, document: customer.document } : null,
    ...(opts.tracking ? { tracking: c.tracking ?? null } : {}),
    endToEndId: c.endToEndId ?? null,
    createdAt: iso(c.createdAt),
    expiresAt: iso(c.expiresAt),
    paidAt: iso(c.paidAt),
    canceledAt: iso(c.canceledAt),
    refundedAt: iso(c.refundedAt),
    refundedAmount: c.refundedAmount ?? 0, // the sum of its COMPLETED refunds
  };
}

export type ChargeView = ReturnType<typeof chargeView>;

// The API view of a raw row: one mapping for every SQL path (settlement, refund, listing).
export function chargeRowView(r: ChargeRow, opts: ChargeViewOptions): ChargeView {
  const fields: ChargeFields = {
    id: r.id,
    txid: r.txid,
    qrCode: r.qr_code,
    amount: r.amount,
    fee: r.fee,
    status: r.status,
    description: r.description,
    expiresIn: r.expires_in,
    createdAt: date(r.created_at)!,
    expiresAt: date(r.expires_at)!,
    tracking: r.tracking ?? null,
    endToEndId: r.end_to_end_id,
    paidAt: date(r.paid_at),
    canceledAt: date(r.canceled_at),
    refundedAt: date(r.refunded_at),
    refundedAmount: r.refunded_amount,
    type: r.type,
    dueDate: r.due_date,
    validityAfterDueDays: r.validity_after_due_days,
    rebate: r.rebate,
    discount: r.discount,
    fine: r.fine,
    interest: r.interest,
    paidAmount: r.paid_amount,
    components: r.components,
    splits: r.splits,
  };
  const customer = r.customer_id ? { id: r.customer_id, name: r.customer_name!, document: r.customer_document! } : null;
  return chargeView(fields, customer, opts);
}

// The creation's body, whatever happened to the charge since (an idempotent replay answers with it, contract): its
// amountDue is the one for the day it was created.
export const creationView = (c: ICharge, publicBaseUrl: string) =>
  chargeView(
    {
      ...c,
      status: 'PENDING',
      endToEndId: null,
      paidAt: null,
      canceledAt: null,
      refundedAt: null,
      refundedAmount: 0,
      paidAmount: null,
      components: null,
      // a due-date charge's bps splits were resolved at payment: the creation showed them without an amount
      splits: c.type === 'DUE_DATE' && c.splits ? pendingSplits(asInputs(c.splits)) : c.splits,
      // a due-date charge's fee became the paid amount's at payment: the creation showed the original amount's
      ...(c.feeBps != null ? { fee: platformFee(c.amount, { bps: c.feeBps, fixed: c.feeFixed ?? 0 }) } : {}),
    },
    c.customer ?? null,
    { publicBaseUrl, image: true, tracking: true, today: saoPauloDate(c.createdAt) },
  );

// Centavos as the API Pix writes reais ("10.50"), from the digits.
const reais = (cents: number) => {
  const digits = String(cents).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
};

const LOCATION_STATUS = {
  PENDING: 'ATIVA',
  PAID: 'CONCLUIDA',
  REFUNDED: 'CONCLUIDA',
  CANCELED: 'REMOVIDA_PELO_PSP',
  FAILED: 'REMOVIDA_PELO_PSP',
} as const;

/**
 * The payload location of a charge (GET /pix/qr/:txid), shaped like the API Pix CobPayload, or CobVPayload for a
 * charge with a due date: then `valor` is what a payment on `day` is made of (the BCB's cobv payload is computed for
 * the day the payer reads it).
 */
export function locationView(c: LocationRow, now: Date, day: string) {
  const common = {
    txid: c.txid,
    revisao: 0,
    status: LOCATION_STATUS[c.status],
    chave: c.pix_key,
    solicitacaoPagador: payerText(c.description, 140),
    recebedor: { nome: payerText(c.merchant_name, 200) },
  };
  const created = new Date(c.created_at).toISOString();
  if (c.type !== 'DUE_DATE' || !c.due_date) {
    return {
      ...common,
      calendario: { criacao: created, apresentacao: now.toISOString(), expiracao: c.expires_in },
      valor: { original: reais(c.amount) },
    };
  }
  const parts = amountDueOn(
    {
      original: c.amount,
      dueDate: c.due_date,
      rebate: c.rebate,
      discount: c.discount,
      fine: c.fine,
      interest: c.interest,
    },
    day,
  );
  const document = c.payer_document ?? '';
  return {
    ...common,
    calendario: {
      criacao: created,
      apresentacao: now.toISOString(),
      dataDeVencimento: c.due_date,
      validadeAposVencimento: c.validity_after_due_days ?? 0,
    },
    devedor: {
      ...(document.length === 14 ? { cnpj: document } : { cpf: document }),
      nome: payerText(c.payer_name ?? '', 200),
    },
    valor: {
      original: reais(parts.original),
      abatimento: reais(parts.rebate),
      desconto: reais(parts.discount),
      multa: reais(parts.fine),
      juros: reais(parts.interest),
      final: reais(parts.final),
    },
  };
}
