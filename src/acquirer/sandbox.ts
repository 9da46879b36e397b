import { randomBytes } from 'node:crypto';
import type { Acquirer, TransferResult } from './acquirer.ts';

export type SandboxDeps = { publicBaseUrl: string };

// The embedded acquirer used when ACQUIRER=sandbox: no network, instant answers. The payload location is
// served by this service itself (GET /pix/qr/:txid). Payments are simulated by POST /v1/sandbox/charges/:id/pay.
export function createSandboxAcquirer({ publicBaseUrl }: SandboxDeps): Acquirer {
  const host = publicBaseUrl.replace(/^https?:\/\//, '');
  return {
    name: 'sandbox',
    async createCharge({ txid }) {
      return { location: `${host}/pix/qr/${txid}` };
    },
    async cancelCharge() {},
    async refund() {
      return { status: 'COMPLETED' };
    },
    async transferOut(): Promise<TransferResult> {
      throw new Error('sandbox transfers: not implemented yet');
    },
    async getTransfer() {
      return null;
    },
  };
}

// An end-to-end id shaped like the real ones: E + ISPB (8) + yyyyMMddHHmm + 11 random alphanumerics = 32 chars.
export function sandboxEndToEndId(now = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 12);
  const rand = randomBytes(11).toString('base64url').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 11);
  return `E00000000${stamp}${rand}`;
}
