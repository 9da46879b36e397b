// The job queues (pg-boss): their names, payloads and settings; enqueue, work and every.
import {
  PgBoss,
  type Db,
  type Job,
  type JobInsert,
  type JobResult,
  type QueueOptions,
  type ScheduleOptions,
  type StopOptions,
  type ConstructorOptions,
  type WorkHandlerFor,
  type WorkOptions,
} from 'pg-boss';
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { bossDb } from './boss-db.ts';
import { ormSql } from './sql.ts';

declare const DATA: unique symbol;
// A queue's name, typed with its jobs' data (a phantom: at run time it is the plain name), so `enqueue` and `work`
// check the payload against the one declaration below.
export type Queue<T extends object> = string & { readonly [DATA]?: T };
const queue = <T extends object = Scheduled>(name: string) => name as Queue<T>;

// The data of each queue's jobs. A payment notification is the acquirer port's PaymentNotification (src/acquirer;
// platform imports no module, so it is spelled out here: the two must stay assignable, tsc checks both ends).
export type PaymentJob = {
  txid: string | null;
  endToEndId: string;
  amount: number;
  paidAt: string;
  components?: { original: number; rebate: number; discount: number; fine: number; interest: number };
  simulated?: true;
};
export type CancelJob = { txid: string; due?: boolean }; // due: a charge with a due date (the acquirer's cobv)
export type RefundJob = { refundId: string };
export type WithdrawalJob = { withdrawalId: string };
export type SandboxTransferJob = { idempotencyKey: string; step: 'settle' | 'return' };
export type CoverJob = { merchantId?: string };
// A recurring charge's call to the PSP (apipix; src/recurring): register its cobr, cancel it, or ask a retry. The
// request is the acquirer port's RecurringChargeRequest, spelled out (platform imports no module).
export type RecurringChargeJob =
  | {
      op: 'create';
      request: {
        txid: string;
        recId: string;
        dueDate: string;
        amount: number;
        description: string | null;
        payer: { name: string; document: string };
      };
    }
  | { op: 'cancel'; txid: string }
  | { op: 'retry'; txid: string; date: string }; // no merchant: every merchant who owes (the scheduled run)
// One attempt of one delivery. `attempt` is the attempts count the row must still have (a stale or duplicated job
// finds it moved on and does nothing); `step` is the position in the retry schedule of this run (a replay restarts it).
export type DeliverJob = { id: string; attempt: number; step: number };
// A deliver job as enqueued: its group is the merchant, so a merchant's deliveries can hold at most
// WEBHOOK_MERCHANT_CONCURRENCY of the daemons' slots (src/platform/slot-worker.ts).
export const deliverJob = (merchantId: string, data: DeliverJob, startAfter?: number) => ({
  data,
  group: { id: merchantId },
  ...(startAfter === undefined ? {} : { startAfter }),
});
// Pix Automático (src/recurring): a PUSH mandate's request to the payer's PSP, and a mandate the merchant cancelled.
export type MandateRequestJob = { mandateId: string; requestId: string };
export type MandateCancelJob = { recId: string };
// apipix: a rec or cobr the PSP said changed (its callback); the worker asks the PSP about it (nothing is trusted).
export type RecurringCallbackJob = { recId: string } | { txid: string };
type Scheduled = Record<string, never>; // scheduled (and kicked) runs carry no data

// Every queue, its jobs' data and who works it; each is created with notify so workers wake on LISTEN/NOTIFY, not on
// the next poll.
export const QUEUES = {
  // first: the dead letter queue of the next one must exist before it (worker: record what could not be settled)
  paymentUnsettled: queue<PaymentJob>('acquirer.notification.unsettled'),
  acquirerNotification: queue<PaymentJob>('acquirer.notification'), // worker: settle payments notified by the acquirer
  chargesExpire: queue('charges.expire'), // worker, scheduled: PENDING past expiry -> CANCELED
  withdrawalSend: queue<WithdrawalJob>('withdrawal.send'), // worker: send the transfer through the acquirer
  withdrawalReconcile: queue('withdrawal.reconcile'), // worker, scheduled: settle stuck PROCESSING withdrawals
  sandboxTransfer: queue<SandboxTransferJob>('sandbox.transfer'), // sandbox acquirer: its asynchronous transfer outcome
  refundSend: queue<RefundJob>('refund.send'), // worker: ask the acquirer for a devolução (a refund, an unmatched payment)
  refundReconcile: queue('refund.reconcile'), // worker, scheduled: ask the acquirer about devoluções still in progress
  chargeCancel: queue<CancelJob>('charge.cancel'), // worker: remove an expired charge's cob at the acquirer
  paymentsReconcile: queue('payments.reconcile'), // worker, scheduled: settle payments the acquirer never notified
  infractionsCover: queue<CoverJob>('infractions.cover'), // worker, scheduled: block credits owed to open infractions
  infractionsPoll: queue('infractions.poll'), // worker, scheduled (apipix): open and settle infractions the PSP lists
  recurringChargeSync: queue<RecurringChargeJob>('recurring_charge.sync'), // worker: a recurring charge's cobr call
  countersFold: queue('counters.fold'), // worker, scheduled: fold the listing counters' +1/-1 rows
  eventsPrune: queue('events.prune'), // worker, scheduled: delete events and delivery logs past the retention window
  recurringDaily: queue('recurring.daily'), // worker, scheduled hourly: the day's automatic charges and expiries
  mandateRequest: queue<MandateRequestJob>('mandate.request'), // worker: send a PUSH mandate's request (solicrec)
  mandateCancel: queue<MandateCancelJob>('mandate.cancel'), // worker: cancel a mandate at the PSP (merchant's)
  recurringCallback: queue<RecurringCallbackJob>('recurring.callback'), // worker (apipix): a rec/cobr the PSP reported
  recurringPoll: queue('recurring.poll'), // worker, scheduled (apipix): recs and cobrs changed lately, for lost callbacks
  webhookDeliver: queue<DeliverJob>('webhook.deliver'), // daemon: one attempt of one delivery (enqueued with its event)
} as const;

// Jobs that exhaust their retries land here for an operator to inspect (and redrive); but a payment notification goes
// to QUEUES.paymentUnsettled, which the worker drains into unmatched payments: money never waits in a dead letter queue.
export const DEAD_LETTER = 'dead.letter';
const deadLetterOf = (name: string) => (name === QUEUES.acquirerNotification ? QUEUES.paymentUnsettled : DEAD_LETTER);

/**
 * Crash recovery. A live worker refreshes the heartbeat of the jobs it holds every HEARTBEAT_SECONDS / 2; the jobs of a
 * process that died (or lost its database) stop being refreshed, and the supervisor of any surviving or restarted
 * worker or daemon fails them HEARTBEAT_SECONDS later, at its next pass (every SUPERVISE_SECONDS), so they are retried
 * at once (retryDelay 1 s) and fetched at the next poll (RECOVERY_POLL_SECONDS: retries send no NOTIFY).
 * Worst case from the crash to the job running again: 10 + 5 + 1 + 2 s. `expireInSeconds` only bounds a handler that is
 * alive but stuck, so it is sized to the longest legitimate run of each queue's work.
 */
export const HEARTBEAT_SECONDS = 10;
export const SUPERVISE_SECONDS = 5;
export const RECOVERY_POLL_SECONDS = 2;
// How often the supervising process (the worker) deletes jobs past their queue's deleteAfterSeconds (completed,
// failed) or retentionSeconds (never run): pg-boss' default is once a day, one statement for a whole day of jobs.
// Every five minutes, each statement deletes five minutes' worth.
const MAINTENANCE_SECONDS = 300;

const EXPIRE_IN_SECONDS: Record<string, number> = {
  [QUEUES.paymentUnsettled]: 300, // one acquirer call and one transaction per notification
  [QUEUES.acquirerNotification]: 60, // a batch of settlements: one transaction
  [QUEUES.chargesExpire]: 300,
  [QUEUES.withdrawalSend]: 300, // acquirer calls with their own timeouts and retries
  [QUEUES.withdrawalReconcile]: 900, // pages through every stuck withdrawal, one acquirer call each
  [QUEUES.sandboxTransfer]: 60,
  [QUEUES.refundSend]: 300,
  [QUEUES.refundReconcile]: 900,
  [QUEUES.chargeCancel]: 300,
  [QUEUES.paymentsReconcile]: 900,
  [QUEUES.recurringChargeSync]: 300, // one acquirer call
  [QUEUES.countersFold]: 300,
  [QUEUES.eventsPrune]: 3600, // a backlog of old rows, a thousand per statement
  [QUEUES.infractionsCover]: 300,
  [QUEUES.infractionsPoll]: 900,
  [QUEUES.recurringDaily]: 1800, // batches of a thousand charges or expiries, a few seconds per hundred thousand
  [QUEUES.mandateRequest]: 300,
  [QUEUES.mandateCancel]: 300,
  [QUEUES.recurringCallback]: 300, // one or two PSP calls and a transaction each
  [QUEUES.recurringPoll]: 900, // pages through the PSP's recent recs and cobrs
  [QUEUES.webhookDeliver]: 300, // a batch of POSTs, each bounded by WEBHOOK_TIMEOUT_MS
};

export const queueOptions = (name: string): QueueOptions & { notify: boolean; deadLetter: string } => ({
  notify: true,
  retryLimit: 8,
  retryDelay: 1,
  retryBackoff: true,
  retryDelayMax: 300,
  deleteAfterSeconds: 7 * 24 * 3600,
  deadLetter: deadLetterOf(name),
  heartbeatSeconds: HEARTBEAT_SECONDS,
  expireInSeconds: EXPIRE_IN_SECONDS[name],
});

// Polling of every worker: NOTIFY wakes it for new jobs; retries (and jobs of a process that died) send none.
export const WORK_POLLING: WorkOptions = {
  pollingIntervalSeconds: 1,
  notifyPollingIntervalSeconds: RECOVERY_POLL_SECONDS,
};

type QueueRow = { name: string } & Partial<Record<keyof ReturnType<typeof queueOptions>, unknown>>;

// Creates missing queues and brings existing ones to the current settings (queues created by an earlier release).
export async function ensureQueues(boss: PgBoss): Promise<void> {
  const existing = new Map(((await boss.getQueues()) as QueueRow[]).map((q) => [q.name, q]));
  if (!existing.has(DEAD_LETTER)) await boss.createQueue(DEAD_LETTER, { deleteAfterSeconds: 30 * 24 * 3600 });
  for (const name of Object.values(QUEUES)) {
    const wanted = queueOptions(name);
    const row = existing.get(name);
    if (!row) {
      await boss.createQueue(name, wanted);
      continue;
    }
    const { notify: _n, ...settings } = wanted;
    if (Object.entries(settings).some(([k, v]) => row[k as keyof QueueRow] !== v))
      await boss.updateQueue(name, settings);
  }
}

const BOSS_SCHEMA = 'pgboss';

// The channel pg-boss NOTIFYs as it inserts jobs due now (the payload: the queue's name), for a process that LISTENs
// on its own (the webhook daemon, which fetches without pg-boss' workers): pg-boss' expression for its schema.
export const BOSS_CHANNEL = `pgboss_${createHash('sha224').update(BOSS_SCHEMA).digest('hex').slice(0, 24)}`;

/**
 * A pg-boss instance over `databaseUrl`. `listenUrl`: a process that works queues (worker, daemon) wakes on NOTIFY
 * through one LISTEN connection there; without it (the API, the CLI, or behind a transaction pooler with no direct
 * URL, see listenUrlOf) it only polls, every second.
 */
export async function createBoss(
  databaseUrl: string,
  logger: Logger,
  opts: { supervise?: boolean; schedule?: boolean; listenUrl?: string; prepare?: boolean } = {},
): Promise<PgBoss> {
  const listenElsewhere = opts.listenUrl && opts.listenUrl !== databaseUrl ? opts.listenUrl : undefined;
  const db = bossDb(databaseUrl, {
    max: 5,
    prepare: opts.prepare ?? false,
    listenUrl: listenElsewhere,
    onError: (err) => boss.emit('error', err as Error), // as pg-boss' own pool's errors reach its `error` event
  });
  const boss = new Boss({
    db,
    schema: BOSS_SCHEMA,
    useListenNotify: opts.listenUrl !== undefined,
    supervise: opts.supervise ?? false,
    superviseIntervalSeconds: SUPERVISE_SECONDS,
    maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
    monitorIntervalSeconds: SUPERVISE_SECONDS,
    schedule: opts.schedule ?? false,
  });
  boss.on('error', (err) => logger.error({ err }, 'pg-boss error'));
  boss.on('warning', (warning) => logger.warn({ warning }, 'pg-boss warning'));
  await boss.start();
  await ensureQueues(boss);
  return boss;
}

// Where a process that works queues LISTENs: its own database, unless that is a pooler in transaction mode, where a
// LISTEN outlives neither its transaction nor its server connection: then the direct URL, or nowhere (polling).
export const listenUrlOf = (
  config: Pick<Config, 'databaseUrl' | 'databasePoolMode' | 'databaseDirectUrl'>,
): string | undefined =>
  config.databasePoolMode === 'transaction' ? (config.databaseDirectUrl ?? undefined) : config.databaseUrl;

// pg-boss over a `db` it was given closes nothing on stop: its pool (boss-db.ts) is ended here, after pg-boss stopped,
// unless `close: false` (as pg-boss' own pool would be).
class Boss extends PgBoss {
  readonly #db: { close: () => Promise<void> };
  constructor(options: ConstructorOptions & { db: { close: () => Promise<void> } }) {
    super(options);
    this.#db = options.db;
  }
  override async stop(options: StopOptions = {}): Promise<void> {
    await super.stop(options);
    if (options.close ?? true) await this.#db.close();
  }
}

/**
 * Where a job is written: in the caller's transaction, MikroORM's (an EntityManager, its pending entities flushed
 * first) or a pg pool's (its `jobs`), so it commits or rolls back with the rows it follows; `null` only when the job
 * is the whole write (a notification accepted, a run kicked).
 */
export type JobTx = EntityManager | Db | null;
type JobOptions = Pick<JobInsert, 'singletonKey' | 'startAfter' | 'group'>;

async function dbOf(tx: JobTx): Promise<{ db?: Db }> {
  if (tx === null) return {};
  if ('executeSql' in tx) return { db: tx };
  await tx.flush();
  return { db: ormSql(tx).jobs };
}

// The one way to enqueue: a job of `queue`, its data checked against the queue's declaration.
export async function enqueue<T extends object>(
  boss: PgBoss,
  tx: JobTx,
  queue: Queue<T>,
  data: T,
  options: JobOptions = {},
): Promise<void> {
  await boss.send(queue, data, { ...options, ...(await dbOf(tx)) });
}

// The same for many jobs of one queue, in one statement.
export async function enqueueMany<T extends object>(
  boss: PgBoss,
  tx: JobTx,
  queue: Queue<T>,
  jobs: (JobOptions & { data: T })[],
): Promise<void> {
  if (jobs.length) await boss.insert(queue, jobs, await dbOf(tx));
}

/**
 * Group commit for jobs that are the whole write (enqueue's `tx` null) sent by concurrent requests of one process: while
 * one insert of a queue is in flight, the jobs that arrive wait and then go together in one statement (one commit, one
 * WAL flush, one NOTIFY). A lone job goes at once, so an idle service adds no latency; a busy one sends fewer, larger
 * inserts instead of queueing one commit per request. Each caller resolves once its job is committed, or rejects with
 * its statement's error (nothing of that statement was written). Per process: nothing is shared between instances.
 */
export function enqueueJoined<T extends object>(
  boss: PgBoss,
  queue: Queue<T>,
  jobs: (JobOptions & { data: T })[],
): Promise<void> {
  let byQueue = joiners.get(boss);
  if (!byQueue) joiners.set(boss, (byQueue = new Map()));
  let joiner = byQueue.get(queue);
  if (!joiner) byQueue.set(queue, (joiner = new Joiner(boss, queue)));
  return joiner.add(jobs);
}

const JOINED_MAX = 200; // jobs per statement: bounds its size when a backlog built up behind a slow commit
const joiners = new WeakMap<PgBoss, Map<string, Joiner>>();
type Waiting = { jobs: (JobOptions & { data: object })[]; resolve: () => void; reject: (err: unknown) => void };

class Joiner {
  #waiting: Waiting[] = [];
  #busy = false;
  readonly #boss: PgBoss;
  readonly #queue: string;
  constructor(boss: PgBoss, queue: string) {
    this.#boss = boss;
    this.#queue = queue;
  }

  add(jobs: Waiting['jobs']): Promise<void> {
    if (jobs.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiting.push({ jobs, resolve, reject });
      if (!this.#busy) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#busy = true;
    while (this.#waiting.length) {
      // whole callers only (a caller's jobs commit together), up to JOINED_MAX jobs unless one caller has more
      const batch: Waiting[] = [];
      let size = 0;
      while (this.#waiting.length && (size === 0 || size + this.#waiting[0].jobs.length <= JOINED_MAX)) {
        const w = this.#waiting.shift()!;
        batch.push(w);
        size += w.jobs.length;
      }
      try {
        await this.#boss.insert(
          this.#queue,
          batch.flatMap((w) => w.jobs),
        );
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.#busy = false;
  }
}

// boss.work with the handler typed by the queue's declaration.
export function work<T extends object, const O extends WorkOptions>(
  boss: PgBoss,
  queue: Queue<T>,
  options: O,
  handler: WorkHandlerFor<O, T>,
): Promise<string> {
  return boss.work<T, unknown, O>(queue, options, handler);
}

export const EVERY_MINUTE = '* * * * *';

/**
 * A scheduled queue: `handler` works it (WORK_POLLING) and pg-boss sends it a job on `cron` (UTC unless `schedule`
 * names a zone). The handler gets the batch of one job (a scheduled run carries no data; a kicked one may).
 */
export async function every<T extends object>(
  boss: PgBoss,
  queue: Queue<T>,
  cron: string,
  handler: WorkHandlerFor<typeof WORK_POLLING, T>,
  schedule?: ScheduleOptions,
): Promise<void> {
  await work(boss, queue, WORK_POLLING, handler);
  await boss.schedule(queue, cron, undefined, schedule);
}

// Runs a batch's jobs concurrently and settles each on its own, so one failure is retried without the others.
export async function settleEach<T>(jobs: Job<T>[], run: (data: T) => Promise<void>): Promise<JobResult[]> {
  const outcomes = await Promise.allSettled(jobs.map((job) => run(job.data)));
  return jobs.map((job, i) => {
    const o = outcomes[i];
    return o.status === 'fulfilled'
      ? { id: job.id, status: 'completed' }
      : { id: job.id, status: 'failed', output: { message: String(o.reason) } };
  });
}

export type { PgBoss };
