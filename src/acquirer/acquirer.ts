// The acquirer port: everything the service asks of the PSP that holds the money. Adapters: sandbox (embedded, no
// network) and apipix (a PSP speaking the Banco Central "API Pix" standard), chosen by ACQUIRER.
import type { Services } from '../platform/services.ts';
import type { PixKeyType } from '../pix/keys.ts';
import type { DueTerms } from '../pix/due-terms.ts';

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
}

export type AcquirerInfractionStatus = 'OPEN' | 'UNDER_REVIEW' | 'ACCEPTED' | 'REJECTED' | 'CANCELED';
export type AcquirerInfraction = {
  acquirerId: string;
  endToEndId: string;
  amount: number;
  status: AcquirerInfractionStatus;
  reason: string;
  deadlineAt: string | null;
};
