import { PgBoss, fromKysely, type Job, type JobResult } from 'pg-boss';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

// Queue names in one place; every queue is created with notify so workers wake on LISTEN/NOTIFY, not on the next poll.
export const QUEUES = {
  acquirerNotification: 'acquirer.notification', // worker: settle payments notified by the acquirer
  chargesExpire: 'charges.expire', // worker, scheduled: PENDING past expiry -> CANCELED
  withdrawalSend: 'withdrawal.send', // worker: send the transfer through the acquirer
  withdrawalReconcile: 'withdrawal.reconcile', // worker, scheduled: settle stuck PROCESSING withdrawals
  sandboxTransfer: 'sandbox.transfer', // sandbox acquirer: its asynchronous transfer outcome
  chargeRefund: 'charge.refund', // worker: return a refunded payment to the payer through the acquirer
  countersFold: 'counters.fold', // worker, scheduled: fold the listing counters' +1/-1 rows
  webhookFanout: 'webhook.fanout', // daemon, legacy: fan-out jobs enqueued by releases before deliveries were written with the event
  webhookDeliver: 'webhook.deliver', // daemon: one attempt of one delivery (enqueued with the event, see recordEvent)
} as const;

// Jobs that exhaust their retries land here for an operator to inspect (and redrive).
export const DEAD_LETTER = 'dead.letter';

export async function ensureQueues(boss: PgBoss): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  if (!existing.has(DEAD_LETTER)) await boss.createQueue(DEAD_LETTER, { deleteAfterSeconds: 30 * 24 * 3600 });
  for (const name of Object.values(QUEUES)) {
    if (existing.has(name)) continue;
    await boss.createQueue(name, {
      notify: true, retryLimit: 8, retryDelay: 1, retryBackoff: true, retryDelayMax: 300, deleteAfterSeconds: 7 * 24 * 3600, deadLetter: DEAD_LETTER,
    });
  }
}

export async function createBoss(databaseUrl: string, logger: Logger, opts: { supervise?: boolean; schedule?: boolean } = {}): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    useListenNotify: true,
    supervise: opts.supervise ?? false,
    schedule: opts.schedule ?? false,
    max: 5,
  });
  boss.on('error', (err) => logger.error({ err }, 'pg-boss error'));
  boss.on('warning', (warning) => logger.warn({ warning }, 'pg-boss warning'));
  await boss.start();
  await ensureQueues(boss);
  return boss;
}

// Enqueue inside the caller's MikroORM transaction: the job commits or rolls back with the business rows.
export async function sendInTx(em: EntityManager, boss: PgBoss, queue: string, data: object, options: object = {}): Promise<string | null> {
  await em.flush();
  return boss.send(queue, data, { ...options, db: fromKysely(em.getKysely()) });
}

// Runs a batch's jobs concurrently and settles each on its own, so one failure is retried without the others.
export async function settleEach<T>(jobs: Job<T>[], run: (data: T) => Promise<void>): Promise<JobResult[]> {
  const outcomes = await Promise.allSettled(jobs.map((job) => run(job.data)));
  return jobs.map((job, i) => {
    const o = outcomes[i];
    return o.status === 'fulfilled' ? { id: job.id, status: 'completed' } : { id: job.id, status: 'failed', output: { message: String(o.reason) } };
  });
}

export type { PgBoss };
