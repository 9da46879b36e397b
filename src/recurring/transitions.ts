// Every status change of a mandate and of a recurring charge, with its event (contract: Pix Automático). Each is one
// guarded UPDATE (`where status in (from)`) in the states files, with its event in the same transaction.
import type { MandateStatus } from './mandate.entity.ts';
import type { RecurringChargeStatus } from './recurring-charge.entity.ts';

export const MANDATE_TRANSITIONS = {
  approve: { from: ['CREATED'], to: 'APPROVED', event: 'mandate.approved' },
  reject: { from: ['CREATED'], to: 'REJECTED', event: 'mandate.rejected' },
  // CREATED not approved by expiresAt; APPROVED the day after its endDate
  expire: { from: ['CREATED', 'APPROVED'], to: 'EXPIRED', event: 'mandate.expired' },
  // by the merchant (PATCH) or the payer (payer-cancel, the PSP's word)
  cancel: { from: ['CREATED', 'APPROVED'], to: 'CANCELED', event: 'mandate.canceled' },
} as const satisfies Record<string, { from: readonly MandateStatus[]; to: MandateStatus; event: string | null }>;

export const RECURRING_CHARGE_TRANSITIONS = {
  // the payer's PSP scheduled it (the sandbox: at once)
  activate: { from: ['CREATED'], to: 'ACTIVE', event: null },
  // an attempt paid it: its payment settled (src/payments), in the settlement's transaction
  pay: { from: ['CREATED', 'ACTIVE'], to: 'PAID', event: 'recurring_charge.paid' },
  // an attempt rejected with no retry left, or with a code that ends it (AC05, AM02, MD01, AG12)
  fail: { from: ['CREATED', 'ACTIVE'], to: 'FAILED', event: 'recurring_charge.failed' },
  // by the merchant before its due date, or with its mandate
  cancel: { from: ['CREATED', 'ACTIVE'], to: 'CANCELED', event: 'recurring_charge.canceled' },
  // retries allowed and none paid by dueDate + 7: on dueDate + 8
  expire: { from: ['CREATED', 'ACTIVE'], to: 'EXPIRED', event: 'recurring_charge.expired' },
} as const satisfies Record<
  string,
  { from: readonly RecurringChargeStatus[]; to: RecurringChargeStatus; event: string | null }
>;

// A rejected attempt that leaves the charge ACTIVE (retries remain): not a status change, but an event.
export const ATTEMPT_FAILED_EVENT = 'recurring_charge.attempt_failed';
// Failure codes that end the charge at once, whatever the policy (contract).
export const FINAL_FAILURE_CODES = ['AC05', 'AM02', 'MD01', 'AG12'] as const;
