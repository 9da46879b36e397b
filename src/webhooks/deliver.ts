import type { KeyObject } from 'node:crypto';
import type { Job, PgBoss } from 'pg-boss';
import type { Logger } from '../platform/logger.ts';
import type { PgPool } from '../platform/pg.ts';
import { enqueueMany, QUEUES, type DeliverJob } from '../platform/queue.ts';
import type { AttemptResult, Sender } from './sender.ts';
import { SecretKeyError } from '../platform/secrets.ts';
import { signedHeaders } from './signing.ts';
import type { SigningKeys } from './signing-keys.ts';
import { nextRetryDelay } from './retry.ts';
import { CANCEL_DELIVERIES, LOAD_DELIVERIES, RECORD_ATTEMPTS, type DeliveryRow } from './webhooks.sql.ts';
import type { DeliveryOutcome } from './webhooks.metrics.ts';
import { LOCK_WEBHOOKS, recordFinalFailures, type DisableSettings } from './auto-disable.ts';
import { reserveSlots } from './rate-limit.ts';

export type DeliverContext = {
  db: PgPool;
  boss: PgBoss;
  sender: Sender;
  signingKeys: SigningKeys;
  retryScale: number;
  disable: DisableSettings; // automatic disabling of failing webhooks (auto-disable.ts)
  logger: Logger;
  wakeAfter: (seconds: number) => void; // retries due soon wake this process' workers instead of waiting for a poll
  count?: (outcome: DeliveryOutcome, n: number) => void; // the daemon's metrics
};

type Work = { job: Job<DeliverJob>; row: DeliveryRow };

/**
 * One batch of deliver jobs: one query loads every row, the POSTs run concurrently (over the sender's keep-alive
 * pools),
 * and each attempt is recorded as its POST ends, together with those that end at the same time (attemptRecorder). The
 * sender turns every network failure into a recorded attempt, so only a database error throws: pg-boss then retries the
 * batch, and the attempts already recorded are not repeated.
 */
export async function deliverBatch(ctx: DeliverContext, jobs: Job<DeliverJob>[]): Promise<void> {
  const { rows } = await ctx.db.query<DeliveryRow>(LOAD_DELIVERIES, [jobs.map((j) => j.data.id)]);
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
    await ctx.db.query(CANCEL_DELIVERIES, [toCancel.map((r) => r.id), toCancel.map((r) => r.attempts)]);
    ctx.count?.('canceled', toCancel.length);
    for (const r of toCancel)
      ctx.logger.info(
        { webhookId: r.webhook_id, deliveryId: r.delivery_id },
        'delivery canceled: webhook inactive or deleted',
      );
  }

  const { now, later } = await pace(ctx, toSend);
  await defer(ctx, later); // before the POSTs: a slow receiver in this batch must not hold their new jobs back
  const recorder = attemptRecorder(ctx);
  await Promise.all(
    now.map(async ({ job, row, wait }) => {
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      const startedAt = new Date();
      const keys = keysOf(ctx, row);
      const result = keys
        ? await ctx.sender.post(
            row.url,
            { ...row.headers, ...signedHeaders(keys, row.delivery_id, row.payload, startedAt.getTime()) },
            row.payload,
          )
        : UNSIGNABLE;
      const step = job.data.step + 1;
      const delay = result.success ? null : nextRetryDelay(step, ctx.retryScale, result.retryAfterSeconds);
      recorder.add({
        row,
        result,
        startedAt,
        step,
        delay,
        status: result.success ? 'SUCCEEDED' : delay === null ? 'FAILED' : 'PENDING',
      });
    }),
  );
  await recorder.done();
}

type Paced = Work & { wait: number };

// Rate-limited webhooks (rate-limit.ts): each delivery gets a slot (a wait in seconds) or is deferred to a later job.
async function pace(ctx: DeliverContext, work: Work[]): Promise<{ now: Paced[]; later: Paced[] }> {
  const limited = Map.groupBy(
    work.filter((w) => w.row.rate_limit !== null),
    (w) => w.row.webhook_id,
  );
  const now: Paced[] = work.filter((w) => w.row.rate_limit === null).map((w) => ({ ...w, wait: 0 }));
  if (limited.size === 0) return { now, later: [] };
  const slots = await reserveSlots(
    ctx.db,
    [...limited].map(([webhookId, list]) => ({ webhookId, n: list.length, rate: list[0].row.rate_limit! })),
  );
  const later: Paced[] = [];
  for (const [webhookId, list] of limited) {
    const { wait, granted, rate } = slots.get(webhookId)!;
    // slot i starts i/rate after the first; those past the granted ones would start there, so their jobs wait for it
    list.forEach((w, i) => (i < granted ? now : later).push({ ...w, wait: wait + i / rate }));
  }
  return { now, later };
}

// Deliveries over their webhook's rate: the same attempt, re-enqueued for when its slot would come (nothing recorded).
async function defer(ctx: DeliverContext, later: Paced[]): Promise<void> {
  if (later.length === 0) return;
  await ctx.db.transaction((_query, jobs) =>
    enqueueMany(
      ctx.boss,
      jobs,
      QUEUES.webhookDeliver,
      later.map(({ job, wait }) => ({ data: job.data, startAfter: seconds(wait) })),
    ),
  );
  for (const { wait } of later) ctx.wakeAfter(wait);
}

// A secret no configured key opens (a key removed from SECRETS_KEYS too early): nothing is sent, the attempt is
// recorded as failed and retried on the usual schedule, so restoring the key lets the delivery through.
const UNSIGNABLE: AttemptResult = {
  statusCode: null,
  response: 'Entrega não enviada: o segredo do webhook não pôde ser decifrado (erro de configuração da plataforma)',
  success: false,
  retryAfterSeconds: null,
};

// The current secret's key, then the one being rotated out while its overlap runs (it signs too).
function keysOf(ctx: DeliverContext, row: DeliveryRow): KeyObject[] | null {
  const current = keyOf(ctx, row, row.secret);
  if (!current) return null;
  const previous = row.previous_secret ? keyOf(ctx, row, row.previous_secret) : null;
  return previous ? [current, previous] : [current];
}

function keyOf(ctx: DeliverContext, row: DeliveryRow, stored: string): KeyObject | null {
  try {
    return ctx.signingKeys(row.webhook_id, stored);
  } catch (err) {
    if (!(err instanceof SecretKeyError)) throw err;
    ctx.logger.error({ webhookId: row.webhook_id, deliveryId: row.delivery_id, err }, 'webhook secret unreadable');
    return null;
  }
}

// Answers that arrive within this window of each other are recorded by one statement.
const RECORD_WINDOW_MS = 5;

/**
 * Records each attempt as its POST ends (not when the batch's slowest receiver does), coalescing the answers that end
 * together into one statement: a crash re-sends only the POSTs in flight or answered in the last few milliseconds.
 * `done` waits for the last write and rethrows a failed one, so pg-boss retries the batch (attempts already recorded
 * are guarded by their count and not sent again).
 */
function attemptRecorder(ctx: DeliverContext) {
  let pending: Attempt[] = [];
  let writing: Promise<void> = Promise.resolve();
  let scheduled = false;
  let failure: unknown;
  const write = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    writing = writing
      .then(() => recordAttempts(ctx, batch))
      .then(
        () => {
          countOutcomes(ctx, batch);
          logFailures(ctx, batch);
        },
        (err: unknown) => {
          failure ??= err;
        },
      );
  };
  return {
    add(attempt: Attempt) {
      pending.push(attempt);
      if (!scheduled) {
        scheduled = true;
        setTimeout(write, RECORD_WINDOW_MS);
      }
    },
    async done() {
      if (scheduled) write();
      await writing;
      if (failure) throw failure;
    },
  };
}

const OUTCOMES = { SUCCEEDED: 'succeeded', PENDING: 'retrying', FAILED: 'failed' } as const;

function countOutcomes(ctx: DeliverContext, attempts: Attempt[]) {
  if (!ctx.count) return;
  const n = { succeeded: 0, retrying: 0, failed: 0 };
  for (const { status } of attempts) n[OUTCOMES[status]]++;
  for (const [outcome, count] of Object.entries(n)) if (count) ctx.count(outcome as DeliveryOutcome, count);
}

function logFailures(ctx: DeliverContext, attempts: Attempt[]) {
  for (const { row, result, status } of attempts) {
    if (result.success) continue;
    ctx.logger.warn(
      {
        webhookId: row.webhook_id,
        deliveryId: row.delivery_id,
        statusCode: result.statusCode,
        attempts: row.attempts + 1,
        status,
      },
      'webhook delivery attempt failed',
    );
  }
}

// One POST's outcome, ready to record: `delay` is the wait before the next attempt (null when none follows).
type Attempt = {
  row: DeliveryRow;
  result: AttemptResult;
  startedAt: Date;
  step: number;
  delay: number | null;
  status: 'SUCCEEDED' | 'FAILED' | 'PENDING';
};

// Milliseconds precision: pg-boss casts the number to a PostgreSQL interval, which rejects exponent notation.
const seconds = (s: number) => Math.round(s * 1000) / 1000;

// Records attempts in one statement; retries' jobs are written in the same transaction as the rows that announce them.
async function recordAttempts(ctx: DeliverContext, attempts: Attempt[]): Promise<void> {
  if (attempts.length === 0) return;
  const params = [
    JSON.stringify(
      attempts.map((a) => ({
        id: a.row.id,
        attempts: a.row.attempts,
        status_code: a.result.statusCode,
        response: a.result.response,
        success: a.result.success,
        status: a.status,
        url: a.row.url,
        attempted_at: a.startedAt.toISOString(),
        delay: a.delay,
      })),
    ),
  ];
  const retries = attempts.filter((a) => a.status === 'PENDING');
  const finals = attempts.filter((a) => a.status === 'FAILED');
  if (retries.length === 0 && finals.length === 0) {
    await ctx.db.query(RECORD_ATTEMPTS, params);
    return;
  }
  const { next, disabled } = await ctx.db.transaction(async (query, jobs) => {
    // Final failures update their webhooks (auto-disable.ts): every webhook of the batch is locked first, in id order.
    if (finals.length > 0) await query(LOCK_WEBHOOKS, [[...new Set(attempts.map((a) => a.row.webhook_id))]]);
    const moved = new Set((await query<{ id: string }>(RECORD_ATTEMPTS, params)).rows.map((r) => r.id));
    const due = retries
      .filter((a) => moved.has(a.row.id))
      .map((a) => ({
        data: { id: a.row.id, attempt: a.row.attempts + 1, step: a.step },
        startAfter: seconds(a.delay!),
      }));
    await enqueueMany(ctx.boss, jobs, QUEUES.webhookDeliver, due);
    const ended = attempts.filter((a) => moved.has(a.row.id) && a.status !== 'PENDING');
    const off = finals.length
      ? await recordFinalFailures(
          query,
          ended.map((a) => ({
            webhookId: a.row.webhook_id,
            status: a.status as 'SUCCEEDED' | 'FAILED',
            at: a.startedAt,
          })),
          ctx.disable,
        )
      : [];
    return { next: due, disabled: off };
  });
  for (const { startAfter } of next) ctx.wakeAfter(startAfter);
  for (const webhookId of disabled)
    ctx.logger.warn({ webhookId }, 'webhook disabled: its deliveries have been failing for good (FAILING)');
}
