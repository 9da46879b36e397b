import { QUEUES } from '../platform/queue.ts';
import type { DeliverContext, DeliveryRow } from './deliver.ts';
import type { DeliverJob } from './fanout.ts';
import type { AttemptResult } from './sender.ts';

// One POST's outcome, ready to record: `delay` is the wait before the next attempt (null when none follows).
export type Attempt = {
  row: DeliveryRow; result: AttemptResult; startedAt: Date; step: number; delay: number | null;
  status: 'SUCCEEDED' | 'FAILED' | 'PENDING';
};

// Milliseconds precision: pg-boss casts the number to a PostgreSQL interval, which rejects exponent notation.
const seconds = (s: number) => Math.round(s * 1000) / 1000;

// Every attempt of a batch in one UPDATE, each row guarded by its attempts count so a duplicated job can never count or
// schedule twice; it returns the rows it moved, and only those get a retry job.
const RECORD = `update webhook_deliveries d set attempts = d.attempts + 1, status_code = r.status_code, response = r.response,
    success = r.success, status = r.status, url = r.url, last_attempt_at = r.attempted_at,
    next_attempt_at = now() + r.delay * interval '1 second', updated_at = now()
  from jsonb_to_recordset($1::jsonb) as r(id uuid, attempts int, status_code int, response text, success boolean, status text,
    url text, attempted_at timestamptz, delay float8)
  where d.id = r.id and d.status = 'PENDING' and d.attempts = r.attempts
  returning d.id`;

/**
 * Records a batch's attempts. Retries' jobs are written in the same transaction as the rows that announce them
 * (one insert for the batch); a batch of final outcomes only needs the one statement.
 */
export async function recordAttempts(ctx: DeliverContext, attempts: Attempt[]): Promise<void> {
  if (attempts.length === 0) return;
  const params = [JSON.stringify(attempts.map((a) => ({
    id: a.row.id, attempts: a.row.attempts, status_code: a.result.statusCode, response: a.result.response, success: a.result.success,
    status: a.status, url: a.row.url, attempted_at: a.startedAt.toISOString(), delay: a.delay,
  })))];
  const retries = attempts.filter((a) => a.status === 'PENDING');
  if (retries.length === 0) {
    await ctx.db.query(RECORD, params);
    return;
  }
  const next = await ctx.db.transaction(async (query, jobs) => {
    const moved = new Set((await query<{ id: string }>(RECORD, params)).rows.map((r) => r.id));
    const due = retries.filter((a) => moved.has(a.row.id)).map((a) => ({
      data: { id: a.row.id, attempt: a.row.attempts + 1, step: a.step } satisfies DeliverJob,
      startAfter: seconds(a.delay!),
    }));
    if (due.length > 0) await ctx.boss.insert(QUEUES.webhookDeliver, due, { db: jobs });
    return due;
  });
  for (const { startAfter } of next) ctx.wakeAfter(startAfter);
}
