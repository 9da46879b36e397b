// A charges row as any module reads it with plain SQL (charges, the settlement in src/payments, refunds, recurring),
// and the payer's name such a read selects: the charges module's word on both, for the modules that write their own
// statements over the charges table (no module imports another's *.sql.ts).
import type { ChargeStatus, ChargeType } from './charge.entity.ts';
import type { Discount, Fine, Interest, Rebate } from '../money/due-terms.ts';
import type { Components } from '../money/due-date-amounts.ts';
import type { ChargeSplit } from '../money/splits.ts';

// The payer's name as the charge was created with (`cu`: its customer, which holds the latest name given for the
// document; read only for a row written before the charge kept its own). refunds.sql.ts and payments/settle.sql.ts read a charge with it too.
export const PAYER_NAME = (charge: string) => `coalesce(${charge}.payer_name, cu.name)`;

// A charges row read with plain SQL (snake_case, timestamps as strings), joined with its customer's columns.
export type ChargeRow = {
  id: string;
  txid: string;
  qr_code: string;
  amount: number;
  fee: number;
  status: ChargeStatus;
  description: string;
  expires_in: number;
  created_at: string;
  expires_at: string;
  tracking?: Record<string, string> | null;
  end_to_end_id: string | null;
  paid_at: string | null;
  canceled_at: string | null;
  refunded_at: string | null;
  refunded_amount: number;
  customer_id: string | null;
  customer_name: string | null;
  customer_document: string | null;
  // a charge with a due date (null on IMMEDIATE) and what its payment paid
  type: ChargeType;
  due_date: string | null;
  validity_after_due_days: number | null;
  rebate: Rebate | null;
  discount: Discount | null;
  fine: Fine | null;
  interest: Interest | null;
  paid_amount: number | null;
  components: Components | null;
  splits: ChargeSplit[] | null;
};
export type MerchantChargeRow = ChargeRow & { merchant_id: string };
