// Every status change of a mandate, of a PUSH mandate's request and of a recurring charge, with its event (contract:
// Pix Automático). Each is one guarded UPDATE (`where status in (from)`) written from its row in the `*.sql.ts` files,
// with its event (`t.event`) in the same transaction.
import type { Transition } from '../platform/sql.ts';
import { REQUEST_STATUSES, type MandateStatus } from './mandate.entity.ts';
import type { RecurringChargeStatus } from './recurring-charge.entity.ts';

export const MANDATE_TRANSITIONS = {
  approve: { from: ['CREATED'], to: 'APPROVED', event: 'mandate.approved' },
  reject: { from: ['CREATED'], to: 'REJECTED', event: 'mandate.rejected' },
  // CREATED not approved by expiresAt; APPROVED the day after its endDate
  expire: { from: ['CREATED', 'APPROVED'], to: 'EXPIRED', event: 'mandate.expired' },
  // by the merchant (PATCH) or the payer (payer-cancel, the PSP's word)
  cancel: { from: ['CREATED', 'APPROVED'], to: 'CANCELED', event: 'mandate.canceled' },
} as const satisfies Record<string, Transition<MandateStatus>>;

export type RequestStatus = (typeof REQUEST_STATUSES)[number];
const besides = <S extends RequestStatus>(s: S) =>
  REQUEST_STATUSES.filter((r): r is Exclude<RequestStatus, S> => r !== s);

/**
 * A PUSH mandate's `request_status` (no events: the mandate's own status carries the outcome). Its request follows its
 * mandate while SENT (accept, reject, expire, cancel: with MANDATE_TRANSITIONS' approve, reject, expire, cancel); the
 * merchant asks again after one EXPIRED or REJECTED (send); and the payer's PSP may report any status (report*, from
 * any other, or none yet).
 */
export const MANDATE_REQUEST_TRANSITIONS = {
  send: { from: ['EXPIRED', 'REJECTED'], to: 'SENT', event: null },
  accept: { from: ['SENT'], to: 'ACCEPTED', event: null },
  reject: { from: ['SENT'], to: 'REJECTED', event: null },
  expire: { from: ['SENT'], to: 'EXPIRED', event: null },
  cancel: { from: ['SENT'], to: 'CANCELED', event: null },
  reportSent: { from: besides('SENT'), to: 'SENT', event: null },
  reportAccepted: { from: besides('ACCEPTED'), to: 'ACCEPTED', event: null },
  reportRejected: { from: besides('REJECTED'), to: 'REJECTED', event: null },
  reportExpired: { from: besides('EXPIRED'), to: 'EXPIRED', event: null },
  reportCanceled: { from: besides('CANCELED'), to: 'CANCELED', event: null },
} as const satisfies Record<string, Transition<RequestStatus>>;

// The request's transition that follows each of the mandate's.
export const REQUEST_FOLLOWS = {
  approve: MANDATE_REQUEST_TRANSITIONS.accept,
  reject: MANDATE_REQUEST_TRANSITIONS.reject,
  expire: MANDATE_REQUEST_TRANSITIONS.expire,
  cancel: MANDATE_REQUEST_TRANSITIONS.cancel,
} as const satisfies Record<keyof typeof MANDATE_TRANSITIONS, Transition<RequestStatus>>;

// What the PSP reports, as the request's transition to it.
export const REQUEST_REPORTED = {
  SENT: MANDATE_REQUEST_TRANSITIONS.reportSent,
  ACCEPTED: MANDATE_REQUEST_TRANSITIONS.reportAccepted,
  REJECTED: MANDATE_REQUEST_TRANSITIONS.reportRejected,
  EXPIRED: MANDATE_REQUEST_TRANSITIONS.reportExpired,
  CANCELED: MANDATE_REQUEST_TRANSITIONS.reportCanceled,
} as const satisfies { [S in RequestStatus]: Transition<RequestStatus> & { to: S } };

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
} as const satisfies Record<string, Transition<RecurringChargeStatus>>;

// A rejected attempt that leaves the charge ACTIVE (retries remain): not a status change, but an event.
export const ATTEMPT_FAILED_EVENT = 'recurring_charge.attempt_failed';
// Failure codes that end the charge at once, whatever the policy (contract).
export const FINAL_FAILURE_CODES = ['AC05', 'AM02', 'MD01', 'AG12'] as const;
