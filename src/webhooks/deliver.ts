import type { Job, PgBoss } from 'pg-boss';
import type { Logger } from '../platform/logger.ts';
import type { DaemonDb } from './daemon-db.ts';
import type { DeliverJob } from './fanout.ts';
import type { Sender } from './sender.ts';
import { signedHeaders, signingKey } from './signing.ts';
import { nextRetryDelay } from './retry.ts';
import { recordAttempts, type Attempt } from './attempts.ts';

export type DeliverContext = {
  db: DaemonDb;
  boss: PgBoss;
  sender: Sender;
  retryScale: number;
  logger: Logger;
  wakeAfter: (seconds: number) => void; // retries due soon wake this process' workers instead of waiting for a poll
};

export type DeliveryRow = {
  id: string; delivery_id: string; webhook_id: string; payload: string; status: string; attempts: number;
  url: string; secret: string; webhook_status: string; deleted: boolean;
};

const LOAD = `select d.id, d.delivery_id, d.webhook_id, d.payload, d.status, d.attempts,
    w.url, w.secret, w.status as webhook_status, w.deleted_at is not null as deleted
  from webhook_deliveries d join webhooks w on w.id = d.webhook_id where d.id = any($1::uuid[])`;

const CANCEL = `update webhook_deliveries d set status = 'CANCELED', next_attempt_at = null, updated_at = now()
  from unnest($1::uuid[], $2::int[]) as c(id, attempts) where d.id = c.id and d.status = 'PENDING' and d.attempts = c.attempts`;

type Work = { job: Job<DeliverJob>; row: DeliveryRow };

/**
 * One batch of deliver jobs in a constant number of statements: one query loads every row, the POSTs run concurrently
 * (over the sender's keep-alive pools), and one statement records every attempt (attempts.ts). The sender turns every
 * network failure into a recorded attempt, so only a database error throws: pg-boss then retries the whole batch.
 */
export async function deliverBatch(ctx: DeliverContext, jobs: Job<DeliverJob>[]): Promise<void> {
  const { rows } = await ctx.db.query<DeliveryRow>(LOAD, [jobs.map((j) => j.data.id)]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const toSend: Work[] = [];
  const toCancel: DeliveryRow[] = [];
  for (const job of jobs) {
    const row = byId.get(job.data.id);
    // A success is never re-sent, and a job that is not the one the row waits for (stale, duplicated, replayed over, or
    // a second job for the same attempt in this batch) does nothing.
    if (!row || row.status !== 'PENDING' || row.attempts !== job.data.attempt) continue;
    byId.delete(row.id); // claimed: a second job for this row in the batch finds nothing
    // Paused or deleted since it was queued: no further attempt (contract).
    if (row.webhook_status !== 'ACTIVE' || row.deleted) toCancel.push(row);
    else toSend.push({ job, row });
  }

  if (toCancel.length > 0) {
    await ctx.db.query(CANCEL, [toCancel.map((r) => r.id), toCancel.map((r) => r.attempts)]);
    for (const r of toCancel) ctx.logger.info({ webhookId: r.webhook_id, deliveryId: r.delivery_id }, 'delivery canceled: webhook inactive or deleted');
  }

  const keys = new Map<string, Buffer>(); // the decoded HMAC key of each webhook secret in the batch
  const keyOf = (secret: string) => keys.get(secret) ?? keys.set(secret, signingKey(secret)).get(secret)!;
  const attempts = await Promise.all(toSend.map(async ({ job, row }): Promise<Attempt> => {
    const startedAt = new Date();
    const result = await ctx.sender.post(row.url, signedHeaders(keyOf(row.secret), row.delivery_id, row.payload, startedAt.getTime()), row.payload);
    const step = job.data.step + 1;
    const delay = result.success ? null : nextRetryDelay(step, ctx.retryScale, result.retryAfterSeconds);
    return { row, result, startedAt, step, delay, status: result.success ? 'SUCCEEDED' : delay === null ? 'FAILED' : 'PENDING' };
  }));
  await recordAttempts(ctx, attempts);
  for (const { row, result, status } of attempts) {
    if (result.success) continue;
    ctx.logger.warn({ webhookId: row.webhook_id, deliveryId: row.delivery_id, statusCode: result.statusCode, attempts: row.attempts + 1, status },
      'webhook delivery attempt failed');
  }
}
