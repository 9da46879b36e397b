// The API's view of a mandate (docs/openapi.yaml components Mandate): one mapping for every row, in responses and in
// the mandate.* events' data.
import { qrPngDataUrl } from '../pix/qr-png.ts';
import { paymentUrl } from '../charges/charges.view.ts';
import { payerText } from '../pix/text.ts';
import type { MandateRow, RecLocationRow } from './mandates.sql.ts';

const iso = (v: Date | string) => new Date(v).toISOString();

// The QR image is drawn only while the payer may still scan it (CREATED), and never for a listing (as charges'):
// events and pages of mandates carry no PNG.
export function mandateView(m: MandateRow, publicBaseUrl: string, { image = true }: { image?: boolean } = {}) {
  return {
    id: m.id,
    recId: m.rec_id,
    journey: m.journey,
    status: m.status,
    customer: { name: m.customer_name, document: m.customer_document },
    contract: m.contract,
    object: m.object,
    frequency: m.frequency,
    startDate: m.start_date,
    endDate: m.end_date,
    amount: m.amount,
    minAmount: m.min_amount,
    payerMaxAmount: m.payer_max_amount,
    retryPolicy: m.retry_policy,
    expiresAt: iso(m.expires_at),
    qrCode: m.qr_code,
    imageBase64: image && m.status === 'CREATED' && m.qr_code ? qrPngDataUrl(m.qr_code) : null,
    paymentUrl: m.charge_id ? paymentUrl(publicBaseUrl, m.charge_id) : null,
    chargeId: m.charge_id,
    autoCharge: m.auto_charge ? { amount: m.auto_charge.amount, leadDays: m.auto_charge.leadDays } : null,
    request: m.request_status ? { status: m.request_status } : null,
    cancellation: m.cancellation ? { by: m.cancellation.by, reason: m.cancellation.reason } : null,
    history: m.history.map((h) => ({ status: h.status, at: h.at })),
    createdAt: iso(m.created_at),
  };
}

export type MandateView = ReturnType<typeof mandateView>;

// Centavos as the API Pix writes reais ("10.50").
const reais = (cents: number) => (cents / 100).toFixed(2);
const REC_STATUS = {
  CREATED: 'CRIADA',
  APPROVED: 'APROVADA',
  REJECTED: 'REJEITADA',
  EXPIRED: 'EXPIRADA',
  CANCELED: 'CANCELADA',
} as const;
const PERIOD = {
  WEEKLY: 'SEMANAL',
  MONTHLY: 'MENSAL',
  QUARTERLY: 'TRIMESTRAL',
  SEMIANNUAL: 'SEMESTRAL',
  ANNUAL: 'ANUAL',
} as const;
const person = (document: string) => (document.length === 14 ? { cnpj: document } : { cpf: document });

/**
 * The payload location of a recurrence (GET /pix/rec/:recId, sandbox), shaped like the API Pix `rec`: what the
 * payer's banking app shows before the approval (the receiver, the payer, the contract, the calendar, the amount).
 */
export function recLocationView(r: RecLocationRow) {
  return {
    idRec: r.rec_id,
    status: REC_STATUS[r.status],
    vinculo: {
      objeto: payerText(r.object, 35),
      contrato: r.contract,
      devedor: { ...person(r.customer_document), nome: payerText(r.customer_name, 140) },
    },
    calendario: {
      dataInicial: r.start_date,
      ...(r.end_date ? { dataFinal: r.end_date } : {}),
      periodicidade: PERIOD[r.frequency],
    },
    valor:
      r.amount !== null
        ? { valorRec: reais(r.amount) }
        : r.min_amount !== null
          ? { valorMinimoRecebedor: reais(r.min_amount) }
          : {},
    politicaRetentativa: r.retry_policy === 'THREE_IN_SEVEN_DAYS' ? 'PERMITE_3R_7D' : 'NAO_PERMITE',
    recebedor: { ...person(r.merchant_document), nome: payerText(r.merchant_name, 140) },
    atualizacao: r.history.map((h) => ({ status: REC_STATUS[h.status], data: h.at })),
  };
}
