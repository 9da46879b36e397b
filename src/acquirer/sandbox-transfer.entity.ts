// The sandbox acquirer's transfers table (sandbox_transfers), shared by every process.
import { defineEntity, p } from '@mikro-orm/core';
import { PIX_KEY_TYPES } from '../pix/keys.ts';

export const SANDBOX_TRANSFER_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED', 'RETURNED'] as const;

// The sandbox acquirer's own book of transfers, shared by every process (API, worker, CLI) through the database.
// Keyed by the caller's idempotency key: a repeated transferOut finds the row instead of sending again;
// `requests` counts how many times the same transfer was asked for (proof that a retry did not send twice).
export const SandboxTransfer = defineEntity({
  name: 'SandboxTransfer',
  tableName: 'sandbox_transfers',
  properties: {
    idempotencyKey: p.string().length(100).primary(),
    amount: p.integer(),
    pixKey: p.string().length(77),
    pixKeyType: p.enum([...PIX_KEY_TYPES]),
    description: p.string().length(255).nullable(),
    status: p.enum([...SANDBOX_TRANSFER_STATUSES]),
    batchId: p.string().length(100).nullable(),
    failureReason: p.string().length(255).nullable(),
    requests: p.integer().default(1),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
