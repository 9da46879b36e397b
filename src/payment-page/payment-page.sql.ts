// The payment page's one statement of its own: the status a payer's page polls. It reads the charges table (of
// src/charges) by its primary key (never a RECURRING row: no page), and nothing else: no merchant, customer or ledger data.
import type { ChargeStatus } from '../charges/charge.entity.ts';

export const PAYMENT_STATUS = `
  select status, expires_at
    from charges
   where id = ? and type <> 'RECURRING'`;
export type PaymentStatusRow = { status: ChargeStatus; expires_at: string };
