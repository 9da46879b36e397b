// Every status change of a sandbox transfer (sandbox_transfers), the sandbox acquirer's own book.
import type { Transition } from '../platform/sql.ts';
import type { SANDBOX_TRANSFER_STATUSES } from './sandbox-transfer.entity.ts';

export type SandboxTransferStatus = (typeof SANDBOX_TRANSFER_STATUSES)[number];

/**
 * A sandbox transfer is booked PROCESSING (or FAILED, for the key that is refused up front: creation), then its
 * scheduled steps move it along (sandbox.ts `advance`): settle completes it, and a transfer to the returning key is
 * then returned by the receiving bank. Each step is a guarded UPDATE (sandbox.sql.ts), so a repeated step changes
 * nothing. The sandbox records no event of its own: the service hears of it through its transfer notification.
 */
export const SANDBOX_TRANSFER_TRANSITIONS = {
  settle: { from: ['PROCESSING'], to: 'COMPLETED', event: null },
  return: { from: ['COMPLETED'], to: 'RETURNED', event: null },
} as const satisfies Record<string, Transition<SandboxTransferStatus>>;
