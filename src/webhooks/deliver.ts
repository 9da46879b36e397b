import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type Job, type JobResult, type PgBoss } from 'pg-boss';
import type { Logger } from '../platform/logger.ts';
import { QUEUES } from '../platform/queue.ts';
import type { DeliverJob } from './fanout.ts';
import type { AttemptResult, Sender } from './sender.ts';
import { signedHeaders } from './signing.ts';
import { nextRetryDelay } from './retry.ts';

export type DeliverContext = {
  em: () => EntityManager;
  boss: PgBoss;
  sender: Sender;
  retryScale: number;
  logger: Logger;
  wakeAfter: (seconds: number) => void; // retries due soon wake this process' workers instead of waiting for a poll
};

type DeliveryRow = {
  id: string; delivery_id: string; webhook_id: string; payload: string; status: string; attempts: number;
  url: string; secret: string; webhook_status: string; deleted_at: string | null;
};

// Milliseconds precision: pg-boss casts the number to a PostgreSQL interval, which rejects exponent notation.
const seconds = (s: number) => Math.round(s * 1000) / 1000;

const RECORD_ATTEMPT = `update webhook_deliveries set attempts = attempts + 1, status_code = ?, response = ?, success = ?, status = ?, url = ?,
    last_attempt_at = ?, next_attempt_at = now() + ?::float8 * interval '1 second', updated_at = now()
  where id = ? and status = 'PENDING' and attempts = ?`;

// Records one attempt in one UPDATE, guarded by the attempts count so a duplicated job can never count or schedule twice.
// A retry's job is written in the same transaction as the row that announces it; a final outcome needs no transaction.
async function record(ctx: DeliverContext, job: DeliverJob, row: DeliveryRow, result: AttemptResult, startedAt: Date): Promise<string> {
  const step = job.step + 1;
  const delay = result.success ? null : nextRetryDelay(step, ctx.retryScale, result.retryAfterSeconds);
  const status = result.success ? 'SUCCEEDED' : delay === null ? 'FAILED' : 'PENDING';
  const params = [result.statusCode, result.response, result.success, status, row.url, startedAt, delay, row.id, row.attempts];
  if (delay === null) {
    await ctx.em().execute(RECORD_ATTEMPT, params, 'run');
    return status;
  }
  await ctx.em().transactional(async (tx) => {
    const { affectedRows } = await tx.execute<{ affectedRows: number }>(RECORD_ATTEMPT, params, 'run');
    if (affectedRows !== 1) return;
    const next: DeliverJob = { id: row.id, attempt: row.attempts + 1, step };
    await ctx.boss.send(QUEUES.webhookDeliver, next, { startAfter: seconds(delay), db: fromKysely(tx.getKysely()) });
  });
  ctx.wakeAfter(seconds(delay));
  return status;
}

async function deliverOne(ctx: DeliverContext, job: DeliverJob, row: DeliveryRow | undefined): Promise<string> {
  // A success is never re-sent, and a job that is not the one the row waits for (stale, duplicated, replayed over) does nothing.
  if (!row || row.status !== 'PENDING' || row.attempts !== job.attempt) return 'skipped';
  const log = ctx.logger.child({ webhookId: row.webhook_id, deliveryId: row.delivery_id });
  if (row.webhook_status !== 'ACTIVE' || row.deleted_at) {
    // Paused or deleted since it was queued: no further attempt (contract).
    await ctx.em().execute(
      `update webhook_deliveries set status = 'CANCELED', next_attempt_at = null, updated_at = now() where id = ? and status = 'PENDING' and attempts = ?`,
      [row.id, row.attempts],
    );
    log.info('delivery canceled: webhook inactive or deleted');
    return 'CANCELED';
  }
  const startedAt = new Date();
  const result = await ctx.sender.post(row.url, signedHeaders(row.secret, row.delivery_id, row.payload, startedAt.getTime()), row.payload);
  const status = await record(ctx, job, row, result, startedAt);
  if (!result.success) log.warn({ statusCode: result.statusCode, attempts: row.attempts + 1, status }, 'webhook delivery attempt failed');
  return status;
}

// One batch of deliver jobs: one query loads them all, then their POSTs run concurrently (the batch size is the bound).
// Each job settles on its own: an infrastructure error fails (and lets pg-boss retry) only that job.
export async function deliverBatch(ctx: DeliverContext, jobs: Job<DeliverJob>[]): Promise<JobResult[]> {
  const rows = await ctx.em().execute<DeliveryRow[]>(
    `select d.id, d.delivery_id, d.webhook_id, d.payload, d.status, d.attempts, w.url, w.secret, w.status as webhook_status, w.deleted_at
     from webhook_deliveries d join webhooks w on w.id = d.webhook_id where d.id in (?)`,
    [jobs.map((j) => j.data.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return Promise.all(jobs.map(async (job): Promise<JobResult> => {
    try {
      return { id: job.id, status: 'completed', output: { outcome: await deliverOne(ctx, job.data, byId.get(job.data.id)) } };
    } catch (err) {
      ctx.logger.error({ err, deliveryRowId: job.data.id }, 'webhook delivery job failed');
      return { id: job.id, status: 'failed', output: { message: (err as Error).message } };
    }
  }));
}
