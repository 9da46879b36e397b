// The payment page's statements of its own. The status a payer's page polls reads the charges table (of src/charges)
// by its primary key (never a RECURRING row: no page), and nothing else: no merchant, customer or ledger data. The
// mandate a charge carries (Pix Automático, src/recurring: QR_WITH_PAYMENT and DUE_DATE_QR pay a charge with the
// approval) is read from its table by the charge's id: the terms the payer authorises and the BR Code that carries
// both (field 80), nothing else.
import { statement } from '../platform/sql.ts';
import type { ChargeStatus } from '../charges/charge.entity.ts';

export const PAYMENT_STATUS = statement(
  'payment_page.payment_status',
  `
  select status, expires_at
    from charges
   where id = $1
     and type <> 'RECURRING'`,
);
export type PaymentStatusRow = { status: ChargeStatus; expires_at: string };

// The live mandate (not yet approved, or approved) paid with this charge; a rejected, expired or cancelled one
// authorises nothing, and the charge is then paid as any other.
export const MANDATE_OF_CHARGE = statement(
  'payment_page.mandate_of_charge',
  `
  select contract, object, frequency, to_char(start_date, 'YYYY-MM-DD') as start_date,
         to_char(end_date, 'YYYY-MM-DD') as end_date, amount, min_amount, qr_code
    from mandates
   where charge_id = $1
     and status in ('CREATED', 'APPROVED')
     and qr_code is not null
   order by created_at desc, id desc
   limit 1`,
);
export type MandateOfChargeRow = {
  contract: string;
  object: string;
  frequency: 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
  start_date: string;
  end_date: string | null;
  amount: number | null;
  min_amount: number | null;
  qr_code: string;
};
