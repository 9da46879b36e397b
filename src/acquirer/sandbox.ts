// The sandbox acquirer: an embedded adapter whose payments, transfers and devoluções a tester drives.
import { randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Job, JobResult, PgBoss } from 'pg-boss';
import { enqueue, QUEUES, work, type SandboxTransferJob } from '../platform/queue.ts';
import type { Logger } from '../platform/logger.ts';
import type { Acquirer, TransferResult } from './acquirer.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './sandbox.sql.ts';
import { buildDynamicPix } from '../pix/brcode.ts';
import { transactional } from '../platform/transaction.ts';

// The sandbox keeps its state in the database (sandbox_transfers) so the API, the worker and the CLI share it.
export type SandboxDeps = { publicBaseUrl: string; orm: MikroORM; boss: PgBoss };

// Destination keys with a scripted outcome (contract: sandbox controls); any other key completes.
export const SANDBOX_KEYS = { fail: 'fail@sandbox.test', return: 'return@sandbox.test' } as const;
// Fractions of a second: the outcome arrives asynchronously, as from a real PSP, yet "within a second".
const SETTLE_AFTER_SECONDS = 0.1;
const RETURN_AFTER_SECONDS = 0.3;
const POLL_SECONDS = 0.5; // future-dated jobs are not NOTIFYed: this queue is polled (pg-boss minimum 0.5 s)

const resultOf = (row: sql.TransferRow): TransferResult => ({
  status: row.status,
  batchId: row.batch_id,
  ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
});

// The embedded acquirer used when ACQUIRER=sandbox: no network, instant answers. The payload location is
// served by this service itself (GET /pix/qr/:txid). Payments are simulated by POST /v1/sandbox/charges/:id/pay.
export function createSandboxAcquirer({ publicBaseUrl, orm, boss }: SandboxDeps): Acquirer {
  const host = publicBaseUrl.replace(/^https?:\/\//, '');
  return {
    name: 'sandbox',
    async createCharge({ txid, amount, merchant, due }) {
      const location = `${host}/pix/qr/${txid}`;
      return {
        location,
        // a charge with a due date owes a different amount each day: the payer's bank reads it from the location
        qrCode: buildDynamicPix({
          location,
          amountCents: due ? undefined : amount,
          merchantName: merchant.name,
          merchantCity: merchant.city,
        }),
      };
    },
    async cancelCharge() {},
    // Sandbox payments come from this service itself (the sandbox pay route, or HMAC-signed notifications): as notified.
    async confirmPayment(notified) {
      return notified;
    },
    async *paymentsBetween() {},
    // Every devolução is made at once; the answer never changes, so a repeat or a later look-up finds it done.
    async refund() {
      return { status: 'COMPLETED' };
    },
    async getRefund() {
      return null;
    },
    async *infractionsBetween() {},
    async submitDefense() {},
    // Idempotent by key: the first call books the transfer (and schedules its outcome), a repeat returns it unchanged.
    async transferOut({ idempotencyKey, amount, pixKey, pixKeyType, description }) {
      return transactional(orm.em.fork(), async (em) => {
        const fails = pixKey === SANDBOX_KEYS.fail; // refused up front, before any batch existed
        const [row] = await ormSql(em).query<sql.TransferRow & { inserted: boolean; amount: number; pix_key: string }>(
          sql.BOOK_TRANSFER,
          [
            idempotencyKey,
            amount,
            pixKey,
            pixKeyType,
            description,
            fails ? 'FAILED' : 'PROCESSING',
            fails ? null : `sbx-batch-${randomBytes(8).toString('hex')}`,
            fails ? 'Chave PIX de destino recusada (sandbox)' : null,
          ],
        );
        if (!row.inserted && (row.amount !== amount || row.pix_key !== pixKey)) {
          throw new Error(`sandbox: idempotency key ${idempotencyKey} reused for a different transfer`);
        }
        if (row.inserted && !fails) await schedule(em, boss, { idempotencyKey, step: 'settle' }, SETTLE_AFTER_SECONDS);
        return resultOf(row);
      });
    },
    // Pix Automático: the sandbox is its own PSP. The recId is made here (RR/RN, ISPB 00000000, the day, 11 chars);
    // the payer's side is driven by POST /v1/sandbox/mandates/:id/* and /v1/sandbox/recurring-charges/:id/attempt.
    async createMandate(_id, { journey, retries, merchant, txid, amountOfPayment }) {
      const recId = `R${retries ? 'R' : 'N'}00000000${saoPauloDay()}${randomAlnum(11)}`;
      if (journey === 'PUSH') return { recId, qrCode: null, location: null };
      const location = `${host}/pix/rec/${recId}`;
      const qrCode = buildDynamicPix({
        location: txid ? `${host}/pix/qr/${txid}` : location,
        amountCents: amountOfPayment ?? undefined,
        merchantName: merchant.name,
        merchantCity: merchant.city,
        recurrenceLocation: location,
      });
      return { recId, qrCode, location };
    },
    async requestMandate() {},
    async cancelMandate() {},
    async getMandate() {
      return null;
    },
    async createRecurringCharge() {},
    async cancelRecurringCharge() {},
    async retryRecurringCharge() {},
    async getRecurringCharge() {
      return null;
    },
    async *mandatesBetween() {},
    async *recurringChargesBetween() {},
    async getTransfer(idempotencyKey) {
      const [row] = await ormSql(orm.em.fork()).query<sql.TransferRow>(sql.TRANSFER, [idempotencyKey]);
      return row ? resultOf(row) : null;
    },
  };
}

async function schedule(em: EntityManager, boss: PgBoss, job: SandboxTransferJob, afterSeconds: number) {
  await enqueue(boss, em, QUEUES.sandboxTransfer, job, { startAfter: afterSeconds });
}

// One step of a sandbox transfer's life (PROCESSING -> COMPLETED [-> RETURNED]); a repeated step changes nothing.
// Returns the transfer as the acquirer now sees it.
async function advance(
  { orm, boss }: Pick<SandboxDeps, 'orm' | 'boss'>,
  { idempotencyKey, step }: SandboxTransferJob,
): Promise<TransferResult | null> {
  return transactional(orm.em.fork(), async (em) => {
    const db = ormSql(em);
    if (step === 'settle') {
      const done = await db.query<{ pix_key: string }>(sql.COMPLETE_TRANSFER, [idempotencyKey]);
      if (done[0]?.pix_key === SANDBOX_KEYS.return)
        await schedule(em, boss, { idempotencyKey, step: 'return' }, RETURN_AFTER_SECONDS);
    } else {
      await db.run(sql.RETURN_TRANSFER, [idempotencyKey]);
    }
    const [row] = await db.query<sql.TransferRow>(sql.TRANSFER, [idempotencyKey]);
    return row ? resultOf(row) : null;
  });
}

export type TransferReport = (idempotencyKey: string, result: TransferResult) => Promise<void>;

// The sandbox's asynchronous side, run by the worker: advances each transfer, then notifies the service through
// `report` (the entry a real acquirer's transfer notification uses). A failed report fails the job, so it is retried.
// `settleEach` runs a batch's jobs concurrently, settling each on its own.
export async function workSandboxTransfers(
  deps: Pick<SandboxDeps, 'orm' | 'boss'> & { logger: Logger },
  report: TransferReport,
  settleEach: <T>(jobs: Job<T>[], run: (data: T) => Promise<void>) => Promise<JobResult[]>,
): Promise<void> {
  await work(
    deps.boss,
    QUEUES.sandboxTransfer,
    {
      pollingIntervalSeconds: POLL_SECONDS,
      notifyPollingIntervalSeconds: POLL_SECONDS,
      batchSize: 20,
      burstWhenBatchFull: true,
      perJobResults: true,
    },
    (jobs) =>
      settleEach(jobs, async (data) => {
        const result = await advance(deps, data);
        if (result) await report(data.idempotencyKey, result);
        else deps.logger.warn({ idempotencyKey: data.idempotencyKey }, 'sandbox transfer not found');
      }),
  );
}

// The São Paulo calendar day as YYYYMMDD.
function saoPauloDay(now = new Date()): string {
  return now.toLocaleDateString('en-CA', { timeZone: 'America/Sao_Paulo' }).replace(/-/g, '');
}

function randomAlnum(n: number): string {
  return randomBytes(n * 2)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, n)
    .padEnd(n, '0');
}

// An end-to-end id shaped like the real ones: E + ISPB (8) + yyyyMMddHHmm + 11 random alphanumerics = 32 chars.
export function sandboxEndToEndId(now = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 12);
  const rand = randomBytes(11)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, 11);
  return `E00000000${stamp}${rand}`;
}
