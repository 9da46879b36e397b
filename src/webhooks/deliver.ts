// One batch of deliveries: rows loaded, POSTs sent, outcomes recorded.
import type { KeyObject } from 'node:crypto';
import type { Job, PgBoss } from 'pg-boss';
import type { Logger } from '../platform/logger.ts';
import type { PgPool } from '../platform/pg.ts';
import { deliverJob, enqueueMany, QUEUES, type DeliverJob } from '../platform/queue.ts';
import type { Finish } from '../platform/slot-worker.ts';
import type { AttemptResult, Sender } from './sender.ts';
import { SecretKeyError } from '../platform/secrets.ts';
import { signedHeaders } from './signing.ts';
import type { SigningKeys } from './signing-keys.ts';
import { nextRetryDelay } from './retry.ts';
import {
  CANCEL_DELIVERIES,
  DEFER_DELIVERIES,
  LOAD_DELIVERIES,
  RECORD_ATTEMPTS,
  type DeliveryRow,
} from './webhooks.sql.ts';
import type { DeliveryOutcome } from './webhooks.metrics.ts';
import { recordFinalFailures, type DisableSettings } from './auto-disable.ts';
import { LOCK_WEBHOOKS } from './auto-disable.sql.ts';
import { reserveSlots } from './rate-limit.ts';
import { sendableHeaders } from './webhook-headers.ts';
import { claimProbes, recordOutcomes, unhealthy, type BreakerSettings } from './breaker.ts';

export type DeliverContext = {
  db: PgPool;
  boss: PgBoss;
  sender: Sender;
  signingKeys: SigningKeys;
  retryScale: number;
  disable: DisableSettings; // automatic disabling of failing webhooks (auto-disable.ts)
  breaker: BreakerSettings; // per-endpoint circuit breaker (breaker.ts)
  logger: Logger;
  wakeAfter: (seconds: number) => void; // retries due soon wake this process' workers instead of waiting for a poll
  count?: (outcome: DeliveryOutcome, n: number) => void; // the daemon's metrics
};

type Work = { job: Job<DeliverJob>; row: DeliveryRow };

/**
 * One batch of deliver jobs: one query loads every row, the POSTs run concurrently (over the sender's keep-alive
 * pools), and each attempt is recorded as its POST ends, together with those that end at the same time in the whole
 * process (attemptRecorder). Each job is finished (`finish`) as soon as its own attempt is recorded, its
 * cancellation or deferral written, or it is found to have nothing to do: the slot worker frees its slot then, so a
 * receiver that hangs until the timeout holds one slot, not the batch. The sender turns every network failure into a
 * recorded attempt, so only a database error fails a job: pg-boss then retries it, and an attempt already recorded is
 * not repeated. Resolves once every job is finished; rejects with the first error.
 */
export async function deliverBatch(
  ctx: DeliverContext,
  jobs: Job<DeliverJob>[],
  finish: Finish<DeliverJob> = () => {},
): Promise<void> {
  const rows = await ctx.db.query<DeliveryRow>(LOAD_DELIVERIES, [jobs.map((j) => j.data.id)]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const toSend: Work[] = [];
  const toCancel: Work[] = [];
  const idle: Job<DeliverJob>[] = [];
  for (const job of jobs) {
    const row = byId.get(job.data.id);
    // A success is never re-sent, and a job that is not the one the row waits for (stale, duplicated, replayed over, or
    // a second job for the same attempt in this batch) does nothing.
    if (!row || row.status !== 'PENDING' || row.attempts !== job.data.attempt) {
      idle.push(job);
      continue;
    }
    byId.delete(row.id); // claimed: a second job for this row in the batch finds nothing
    // Paused or deleted since it was queued: no further attempt (contract).
    if (row.webhook_status !== 'ACTIVE' || row.deleted) toCancel.push({ job, row });
    else toSend.push({ job, row });
  }
  finish(idle);
  const steps: Promise<void>[] = [];
  // `completes`: the run completes its jobs itself, in the transaction that records their attempts
  const step = (work: Work[], run: () => Promise<void>, completes = false) => {
    const p = run().then(
      () =>
        finish(
          work.map((w) => w.job),
          completes ? 'completed' : 'done',
        ),
      (err: unknown) => {
        finish(
          work.map((w) => w.job),
          { failed: err },
        );
        throw err;
      },
    );
    steps.push(p);
    return p;
  };

  if (toCancel.length > 0) await step(toCancel, () => cancel(ctx, toCancel));
  const { now, later, held } = await pace(ctx, toSend);
  await step(later, () => defer(ctx, later)); // before the POSTs: a slow receiver must not hold their new jobs back
  const recorder = recorderOf(ctx);
  for (const w of held) void step([w], () => record(ctx, recorder, w, CIRCUIT_OPEN, new Date()), true);
  for (const w of now) void step([w], () => attempt(ctx, recorder, w), true); // all settled below
  const failed = (await Promise.allSettled(steps)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function cancel(ctx: DeliverContext, works: Work[]): Promise<void> {
  await ctx.db.run(CANCEL_DELIVERIES, [works.map((w) => w.row.id), works.map((w) => w.row.attempts)]);
  ctx.count?.('canceled', works.length);
  for (const { row } of works)
    ctx.logger.info(
      { webhookId: row.webhook_id, deliveryId: row.delivery_id },
      'delivery canceled: webhook inactive or deleted',
    );
}

// One POST, then its attempt handed to the recorder; resolves once it is recorded.
async function attempt(ctx: DeliverContext, recorder: Recorder, { job, row, wait }: Paced): Promise<void> {
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  const startedAt = new Date();
  const keys = keysOf(ctx, row);
  const result = keys
    ? await ctx.sender.post(
        row.url,
        { ...sendableHeaders(row.headers), ...signedHeaders(keys, row.delivery_id, row.payload, startedAt.getTime()) },
        row.payload,
      )
    : UNSIGNABLE;
  await record(ctx, recorder, { job, row }, result, startedAt);
}

// An attempt's outcome handed to the recorder, with the next step of the retry schedule; resolves once recorded.
function record(ctx: DeliverContext, recorder: Recorder, { job, row }: Work, result: AttemptResult, startedAt: Date) {
  const step = job.data.step + 1;
  const delay = result.success ? null : nextRetryDelay(step, ctx.retryScale, result.retryAfterSeconds);
  return recorder.add({
    job,
    row,
    result,
    startedAt,
    step,
    delay,
    status: result.success ? 'SUCCEEDED' : delay === null ? 'FAILED' : 'PENDING',
  });
}

type Paced = Work & { wait: number };

// While a probe is out, the other deliveries to its endpoint look again this often (x WEBHOOK_RETRY_SCALE).
const PROBE_RECHECK_SECONDS = 1;

/**
 * When each delivery goes: now, after a wait (its rate-limit slot, rate-limit.ts), later (over its webhook's rate:
 * its job deferred), or not at all (`held`: its webhook's circuit breaker is open, breaker.ts). A held delivery's
 * attempt is recorded at once as failed without a POST, and it goes on along its retry schedule: the contract's
 * schedule still decides when each attempt is due, the breaker only spares the daemons' slots the POSTs to an
 * endpoint that has stopped answering. A breaker past its cooldown lets one probe through, to the daemon that claims
 * it; the endpoint's other deliveries are deferred meanwhile, so a probe that succeeds lets them all go at once.
 */
async function pace(ctx: DeliverContext, work: Work[]): Promise<{ now: Paced[]; later: Paced[]; held: Work[] }> {
  const now: Paced[] = [];
  const later: Paced[] = [];
  const held: Work[] = [];
  const limited = new Map<string, Work[]>();
  const probing = new Map<string, Work[]>();
  for (const w of work) {
    const open = w.row.breaker_wait;
    if (open !== null && open > 0) held.push(w);
    else if (open !== null) probing.set(w.row.webhook_id, [...(probing.get(w.row.webhook_id) ?? []), w]);
    else if (w.row.rate_limit !== null) limited.set(w.row.webhook_id, [...(limited.get(w.row.webhook_id) ?? []), w]);
    else now.push({ ...w, wait: 0 });
  }
  if (probing.size > 0) {
    const claimed = await claimProbes(ctx.db, [...probing.keys()], ctx.breaker);
    // the others wait for the probe's verdict, their jobs deferred (no attempt counted): a success lets them through
    for (const [webhookId, list] of probing) {
      const probe = claimed.has(webhookId) ? list.shift() : undefined;
      if (probe) now.push({ ...probe, wait: 0 });
      for (const w of list) later.push({ ...w, wait: PROBE_RECHECK_SECONDS * ctx.retryScale });
    }
  }
  if (limited.size === 0) return { now, later, held };
  const slots = await reserveSlots(
    ctx.db,
    [...limited].map(([webhookId, list]) => ({ webhookId, n: list.length, rate: list[0].row.rate_limit! })),
  );
  for (const [webhookId, list] of limited) {
    const { wait, granted, rate } = slots.get(webhookId)!;
    // slot i starts i/rate after the first; those past the granted ones would start there, so their jobs wait for it
    list.forEach((w, i) => (i < granted ? now : later).push({ ...w, wait: wait + i / rate }));
  }
  return { now, later, held };
}

// Deliveries deferred (over their webhook's rate, or waiting for a probe): the same attempt, re-enqueued for later
// (nothing recorded but the time of that next attempt, which the delivery log shows as nextAttemptAt).
async function defer(ctx: DeliverContext, later: Paced[]): Promise<void> {
  if (later.length === 0) return;
  await ctx.db.tx(async ({ run, jobs }) => {
    await run(DEFER_DELIVERIES, [later.map((w) => w.row.id), later.map((w) => seconds(w.wait))]);
    await enqueueMany(
      ctx.boss,
      jobs,
      QUEUES.webhookDeliver,
      later.map(({ job, row, wait }) => deliverJob(row.merchant_id, job.data, seconds(wait))),
    );
  });
  for (const { wait } of later) ctx.wakeAfter(wait);
}

// A delivery held by its webhook's open circuit breaker (breaker.ts): recorded as a failed attempt, not sent.
export const CIRCUIT_OPEN: AttemptResult = {
  statusCode: null,
  response:
    'Não enviada: o destino vem falhando (sem resposta, 5xx ou 429) e os envios estão suspensos até que uma ' +
    'tentativa de teste seja atendida; esta entrega segue o cronograma de novas tentativas',
  success: false,
  retryAfterSeconds: null,
};

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

type Recorder = { add: (attempt: Attempt) => Promise<void> };
const recorders = new WeakMap<DeliverContext, Recorder>();
const recorderOf = (ctx: DeliverContext): Recorder => {
  let r = recorders.get(ctx);
  if (!r) recorders.set(ctx, (r = attemptRecorder(ctx)));
  return r;
};

/**
 * Records each attempt as its POST ends (not when the batch's slowest receiver does), coalescing the answers that end
 * together, in any batch of the process, into one statement: a crash re-sends only the POSTs in flight or answered in
 * the last few milliseconds. `add` resolves once that attempt is recorded, or rejects with its statement's error.
 */
function attemptRecorder(ctx: DeliverContext): Recorder {
  let pending: { attempt: Attempt; done: PromiseWithResolvers<void> }[] = [];
  let timer: NodeJS.Timeout | null = null;
  const write = () => {
    timer = null;
    const batch = pending;
    pending = [];
    const attempts = batch.map((p) => p.attempt);
    // the breakers are updated before the jobs are finished, so the next delivery to that endpoint sees them
    recordAttempts(ctx, attempts).then(
      async () => {
        await updateBreakers(ctx, attempts);
        for (const p of batch) p.done.resolve();
        countOutcomes(ctx, attempts);
        logFailures(ctx, attempts);
      },
      (err: unknown) => {
        for (const p of batch) p.done.reject(err);
      },
    );
  };
  return {
    add(attempt) {
      const done = Promise.withResolvers<void>();
      pending.push({ attempt, done });
      timer ??= setTimeout(write, RECORD_WINDOW_MS);
      return done.promise;
    },
  };
}

// The circuit breakers of the webhooks these attempts went to (breaker.ts), after they are recorded; best effort.
async function updateBreakers(ctx: DeliverContext, attempts: Attempt[]): Promise<void> {
  if (ctx.breaker.threshold === 0) return;
  const outcomes = attempts
    .filter(({ result }) => result !== UNSIGNABLE && result !== CIRCUIT_OPEN)
    .map(({ row, result }) => ({
      webhookId: row.webhook_id,
      outcome: result.success
        ? ('success' as const)
        : unhealthy(result.statusCode)
          ? ('unhealthy' as const)
          : ('healthy' as const),
    }));
  if (!outcomes.some((o) => o.outcome !== 'success')) return;
  try {
    await recordOutcomes(ctx.db, outcomes, ctx.breaker);
  } catch (err) {
    ctx.logger.warn({ err }, 'updating circuit breakers failed');
  }
}

const OUTCOMES = { SUCCEEDED: 'succeeded', PENDING: 'retrying', FAILED: 'failed' } as const;

function countOutcomes(ctx: DeliverContext, attempts: Attempt[]) {
  if (!ctx.count) return;
  const n = { succeeded: 0, retrying: 0, failed: 0 };
  for (const { status } of attempts) n[OUTCOMES[status]]++;
  for (const [outcome, count] of Object.entries(n)) if (count) ctx.count(outcome as DeliveryOutcome, count);
}

function logFailures(ctx: DeliverContext, attempts: Attempt[]) {
  const held = new Map<string, number>();
  for (const { row, result, status } of attempts) {
    if (result.success) continue;
    if (result === CIRCUIT_OPEN) {
      held.set(row.webhook_id, (held.get(row.webhook_id) ?? 0) + 1);
      continue;
    }
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
  for (const [webhookId, n] of held)
    ctx.logger.info({ webhookId, deliveries: n }, 'webhook deliveries not sent: circuit breaker open');
}

// One POST's outcome, ready to record: `delay` is the wait before the next attempt (null when none follows).
type Attempt = {
  job: Job<DeliverJob>;
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
  // The attempts' jobs are completed in the same transaction: one commit, and no window where an attempt is recorded
  // but its job still looks active to the fetches (a merchant's share counts active jobs).
  const { next, disabled } = await ctx.db.tx(async (sql) => {
    const { query, jobs } = sql;
    // Final failures update their webhooks (auto-disable.ts): every webhook of the batch is locked first, in id order.
    if (finals.length > 0) await query(LOCK_WEBHOOKS, [[...new Set(attempts.map((a) => a.row.webhook_id))]]);
    const moved = new Set((await query<{ id: string }>(RECORD_ATTEMPTS, params)).map((r) => r.id));
    const due = retries
      .filter((a) => moved.has(a.row.id))
      .map((a) =>
        deliverJob(a.row.merchant_id, { id: a.row.id, attempt: a.row.attempts + 1, step: a.step }, seconds(a.delay!)),
      );
    if (due.length) await enqueueMany(ctx.boss, jobs, QUEUES.webhookDeliver, due);
    const ended = attempts.filter((a) => moved.has(a.row.id) && a.status !== 'PENDING');
    const off = finals.length
      ? await recordFinalFailures(
          sql,
          ended.map((a) => ({
            webhookId: a.row.webhook_id,
            status: a.status as 'SUCCEEDED' | 'FAILED',
            at: a.startedAt,
          })),
          ctx.disable,
        )
      : [];
    await ctx.boss.complete(
      QUEUES.webhookDeliver,
      attempts.map((a) => a.job),
      undefined,
      { db: jobs },
    );
    return { next: due, disabled: off };
  });
  for (const { startAfter } of next) ctx.wakeAfter(startAfter ?? 0);
  for (const webhookId of disabled)
    ctx.logger.warn({ webhookId }, 'webhook disabled: its deliveries have been failing for good (FAILING)');
}
