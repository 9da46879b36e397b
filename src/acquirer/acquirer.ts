// The acquirer port: everything the service asks of the PSP that holds the money. Adapters: sandbox (embedded).
export type PixKeyType = 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'CHAVE_ALEATORIA';

// A payment the acquirer saw arrive (API Pix "pix" notification item), amounts in centavos.
export type PaymentNotification = { txid: string; endToEndId: string; amount: number; paidAt: string };

export type TransferStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'RETURNED';
export type TransferResult = { status: TransferStatus; batchId: string | null; failureReason?: string };

export interface Acquirer {
  readonly name: string;
  // Registers an immediate charge (API Pix PUT /v2/cob/{txid}); returns the payload location without scheme.
  createCharge(input: { txid: string; amount: number; expiresIn: number; accountId: string; description: string }): Promise<{ location: string }>;
  cancelCharge(txid: string): Promise<void>;
  // Returns the payment to the payer (API Pix devolução); idempotent by refundId.
  refund(input: { endToEndId: string; refundId: string; amount: number }): Promise<{ status: 'COMPLETED' | 'FAILED' }>;
  // Sends a PIX out of the merchant's balance; idempotent by idempotencyKey (a retry never sends twice).
  transferOut(input: { idempotencyKey: string; amount: number; pixKey: string; pixKeyType: PixKeyType; description: string | null }): Promise<TransferResult>;
  // The acquirer's view of a transfer, for reconciliation after a crash; null when it never received it.
  getTransfer(idempotencyKey: string): Promise<TransferResult | null>;
}
