// The acquirer port: everything the service asks of the PSP that holds the money. Adapters: sandbox (embedded, no
// network) and apipix (a PSP speaking the Banco Central "API Pix" standard), chosen by ACQUIRER.
import type { Services } from '../platform/services.ts';
import type { PixKeyType } from '../pix/keys.ts';
import type { DueTerms } from '../money/due-terms.ts';

// What the payer's PSP says a payment is made of (API Pix `Pix.componentesValor`), in centavos, absent ones 0.
export type PaymentComponents = { original: number; rebate: number; discount: number; fine: number; interest: number };

// A payment the acquirer saw arrive (API Pix `Pix`), amounts in centavos; txid null for a Pix paid without one.
// paidAt: its time as the acquirer gave it (settlement reads it through settledTime, src/payments/unsettled.ts).
// `components` when the acquirer told them (a PSP's componentesValor). `simulated`: made up by the sandbox's pay route
// (never by a notification), dated by the simulation.
export type PaymentNotification = {
  txid: string | null;
  endToEndId: string;
  amount: number;
  paidAt: string;
  components?: PaymentComponents;
  simulated?: true;
};

// A charge with a due date (API Pix cobv): payable until the end of dueDate + validityAfterDueDays (São Paulo), the
// amount due by day from `amount` and the terms.
export type DueDateRequest = DueTerms & { dueDate: string; validityAfterDueDays: number };

export type ChargeRequest = {
  txid: string;
  amount: number;
  expiresIn: number; // immediate charges only; a due-date charge ends with its last valid day
  description: string;
  payer?: { name: string; document: string }; // required with `due`
  merchant: { name: string; city: string };
  due?: DueDateRequest;
};

export type RefundStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED';
export type RefundResult = { status: RefundStatus; failureReason?: string };

export type TransferStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'RETURNED';
export type TransferResult = { status: TransferStatus; batchId: string | null; failureReason?: string };

export type TransferRequest = {
  idempotencyKey: string;
  amount: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  description: string | null;
};

// What a module that talks to the acquirer is given: the platform's services and the adapter (src/deps.ts builds it).
// Use cases take the narrow part they need (Pick).
export type AcquirerDeps = Services & { acquirer: Acquirer };

export interface Acquirer {
  readonly name: 'sandbox' | 'apipix';
  // Registers a charge (API Pix PUT /v2/cob/{txid}, or /v2/cobv/{txid} with `due`): the BR Code the payer scans and
  // its payload location.
  createCharge(input: ChargeRequest): Promise<{ qrCode: string; location: string }>;
  // Removes a charge nobody may pay any more (expired; `due`: a charge with a due date); idempotent.
  cancelCharge(txid: string, due?: boolean): Promise<void>;
  // What the acquirer itself says of a notified payment (nothing in a notification is trusted); null: not confirmed.
  confirmPayment(notified: PaymentNotification): Promise<PaymentNotification | null>;
  // Every payment received in [from, to), for reconciliation of notifications that never came.
  paymentsBetween(from: Date, to: Date): AsyncIterable<PaymentNotification>;
  // Returns (part of) a payment to the payer (API Pix devolução); idempotent by refundId. `description`: a text shown
  // to the payer (the devolução's descricao).
  refund(input: { endToEndId: string; refundId: string; amount: number; description?: string }): Promise<RefundResult>;
  // The acquirer's view of a refund; null when it never received it.
  getRefund(input: { endToEndId: string; refundId: string }): Promise<RefundResult | null>;
  // Sends a PIX out of the platform's account; idempotent by idempotencyKey (a retry never sends twice).
  transferOut(input: TransferRequest): Promise<TransferResult>;
  // The acquirer's view of a transfer, for reconciliation after a crash; null when it never received it.
  getTransfer(idempotencyKey: string): Promise<TransferResult | null>;
  // MED infractions the acquirer created or updated in [from, to) (none for the sandbox: its infractions are opened by
  // POST /v1/sandbox/charges/:id/infraction).
  infractionsBetween(from: Date, to: Date): AsyncIterable<AcquirerInfraction>;
  // Forwards the merchant's defence of an infraction the acquirer opened.
  submitDefense(acquirerId: string, text: string): Promise<void>;

  // Pix Automático. The sandbox answers at once and its payer is driven by /v1/sandbox/mandates|recurring-charges;
  // apipix reports every later change through its rec/cobr callbacks and the periodic GETs (src/recurring learns them
  // through the same use cases the sandbox routes call).
  // Registers a mandate (locrec + rec); idempotent by the mandate's own id (`id`, used as the PSP-side reference).
  createMandate(id: string, input: MandateRequest): Promise<MandateCreated>;
  // Journey 1: asks the payer's PSP to approve (solicrec); idempotent by requestId.
  requestMandate(requestId: string, input: MandateRequestToPayer): Promise<void>;
  // The receiver cancels a mandate (PATCH /v2/rec/{idRec} CANCELADA); idempotent.
  cancelMandate(recId: string): Promise<void>;
  getMandate(recId: string): Promise<AcquirerMandate | null>;
  // PUT /v2/cobr/{txid}; idempotent by txid.
  createRecurringCharge(input: RecurringChargeRequest): Promise<void>;
  // PATCH /v2/cobr/{txid} CANCELADA; idempotent.
  cancelRecurringCharge(txid: string): Promise<void>;
  // POST /v2/cobr/{txid}/retentativa/{date}; idempotent by (txid, date).
  retryRecurringCharge(txid: string, date: string): Promise<void>;
  getRecurringCharge(txid: string): Promise<AcquirerRecurringCharge | null>;
  // Mandates and recurring charges the PSP changed in [from, to), for callbacks that never came (GET /v2/rec, /v2/cobr).
  mandatesBetween(from: Date, to: Date): AsyncIterable<AcquirerMandate>;
  recurringChargesBetween(from: Date, to: Date): AsyncIterable<AcquirerRecurringCharge>;
}

// Pix Automático (src/recurring): the receiver's PSP keeps the mandates (API Pix rec) and their charges (cobr).
export type MandateFrequency = 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
export type MandateJourney = 'PUSH' | 'QR' | 'QR_WITH_PAYMENT' | 'DUE_DATE_QR';

// A mandate to register (POST /v2/locrec + POST /v2/rec; QR journeys: GET /v2/rec/{idRec}?txid= for the BR Code).
export type MandateRequest = {
  journey: MandateJourney;
  customer: { name: string; document: string };
  contract: string;
  object: string;
  frequency: MandateFrequency;
  startDate: string; // YYYY-MM-DD, São Paulo
  endDate: string | null;
  amount: number | null; // fixed (valorRec) ...
  minAmount: number | null; // ... or variable (valorMinimoRecebedor)
  retries: boolean; // politicaRetentativa PERMITE_3R_7D
  expiresAt: string; // ISO instant: the payer's time to approve
  merchant: { name: string; city: string };
  // QR_WITH_PAYMENT / DUE_DATE_QR: the charge (cob / cobv) paid with the approval, already registered by createCharge
  txid: string | null;
  amountOfPayment: number | null;
};

// What the PSP made of it: the recorrência's id (the PSP generates it), and for the QR journeys the BR Code to show.
export type MandateCreated = { recId: string; qrCode: string | null; location: string | null };

// Journey 1 (PUSH): a solicitação to the payer's PSP (POST /v2/solicrec).
export type MandateRequestToPayer = {
  recId: string;
  payerAccount: { ispb: string; branch: string; account: string; document: string };
  expiresAt: string;
};

export type AcquirerMandateStatus = 'CREATED' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELED';
// The PSP's view of a mandate (a rec callback or GET /v2/rec): status, the payer's maximum, who cancelled it.
export type AcquirerMandate = {
  recId: string;
  status: AcquirerMandateStatus;
  payerMaxAmount: number | null;
  cancellation: { by: 'PAYER' | 'MERCHANT'; reason: string | null } | null;
  requestStatus: 'SENT' | 'ACCEPTED' | 'REJECTED' | 'EXPIRED' | 'CANCELED' | null; // PUSH: the solicrec's
  // when the PSP last changed that request (so an earlier request's outcome is not taken for a newer one's); absent:
  // unknown
  requestChangedAt?: string | null;
  updatedAt: string;
};

// One cycle's charge to register (PUT /v2/cobr/{txid}).
export type RecurringChargeRequest = {
  txid: string;
  recId: string;
  dueDate: string;
  amount: number;
  description: string | null;
  payer: { name: string; document: string };
};

export type AcquirerAttemptStatus = 'SCHEDULED' | 'PAID' | 'REJECTED' | 'CANCELED';
export type AcquirerRecurringChargeStatus = 'CREATED' | 'ACTIVE' | 'PAID' | 'EXPIRED' | 'FAILED' | 'CANCELED';
// The PSP's view of a recurring charge (a cobr callback or GET /v2/cobr): its status and attempts (tentativas).
export type AcquirerRecurringCharge = {
  txid: string;
  status: AcquirerRecurringChargeStatus;
  attempts: { date: string; status: AcquirerAttemptStatus; failureCode: string | null; endToEndId: string | null }[];
  updatedAt: string;
};

export type AcquirerInfractionStatus = 'OPEN' | 'UNDER_REVIEW' | 'ACCEPTED' | 'REJECTED' | 'CANCELED';
export type AcquirerInfraction = {
  acquirerId: string;
  endToEndId: string;
  amount: number;
  status: AcquirerInfractionStatus;
  reason: string;
  deadlineAt: string | null;
};
