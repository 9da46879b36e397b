import type { Db, Job, PgBoss } from 'pg-boss';
import type { Logger } from './logger.ts';
import { HEARTBEAT_SECONDS, type Queue } from './queue.ts';

/**
 * A queue worked slot by slot (the webhook daemon's). pg-boss' work() hands a batch to its handler and fetches again
 * only once the whole batch is done, so one job that waits for a receiver hanging until its timeout holds every slot
 * of its batch. Here each job holds one slot, and only until its own work is done:
 *
 * - a fetch takes as many jobs as slots are free, with `groupConcurrency` (pg-boss counts each group's active jobs in
 *   the database, so the cap holds across every process: a merchant's deliveries can hold at most that many slots of
 *   all daemons together, and the fetch passes over its jobs beyond it to the next group's);
 * - the handler settles each job on its own (`finish`); its slot is free at once, and its completion (or failure, for
 *   pg-boss to retry) joins those settled within the same few milliseconds in one statement;
 * - the jobs held are kept alive by one heartbeat statement every HEARTBEAT_SECONDS / 2; a process that dies stops
 *   refreshing them, and a supervisor retries them (queue.ts, crash recovery);
 * - it fetches when woken (a NOTIFY for the queue, a due retry, the poll) and whenever at least `minFetch` slots have
 *   come free since jobs were last found: a backlog is drained in fetches of a useful size.
 */
export type SlotWorkerOptions = {
  capacity: number; // slots of this process
  // Active jobs per group, across every process. pg-boss counts a group's active jobs as its fetch starts, so two
  // fetches at once would each see the other's claims as not yet taken: `fetchIn` runs each fetch in a transaction
  // that first takes a lock every process of the queue shares (FETCH_LOCK), so a fetch sees all claims before it.
  groupConcurrency?: { limit: number; fetchIn: <R>(fetch: (db: Db) => Promise<R>) => Promise<R> };
  minFetch: number; // free slots worth a fetch while jobs are running
  pollSeconds: () => number; // fetch at least this often (retries and a lost NOTIFY wake nobody)
};
export type Finish<T> = (jobs: Job<T>[], err?: unknown) => void;
// Starts the work of `jobs`; calls `finish` for each exactly once (a throw or rejection fails those not yet finished).
export type SlotHandler<T> = (jobs: Job<T>[], finish: Finish<T>) => Promise<void>;
export type SlotWorker = {
  wake: () => void;
  readonly held: number;
  stop: (timeoutMs: number) => Promise<void>; // no new fetch; waits (up to timeoutMs) for the jobs held
};

const SETTLE_WINDOW_MS = 5;

// The lock that serialises the fetches of one queue (groupConcurrency), in the fetch's own transaction.
export const FETCH_LOCK = `
  select pg_advisory_xact_lock(hashtextextended('pix:slot-fetch:' || $1::text, 0))`;

export function startSlotWorker<T extends object>(
  boss: PgBoss,
  queue: Queue<T>,
  opts: SlotWorkerOptions,
  handle: SlotHandler<T>,
  logger: Logger,
): SlotWorker {
  const held = new Map<string, Job<T>>();
  let stopping = false;
  let wanted = true; // jobs may be waiting: fetch as soon as a slot is free
  let freedSince = 0; // slots freed since the last fetch
  let signal: (() => void) | null = null;
  const nudge = () => signal?.();

  const settle = settler(boss, queue, logger);
  // A finished job's slot is free at once; the fetch it may call for waits for its completion to commit, since
  // until then pg-boss still counts the job among its group's active ones.
  const finish: Finish<T> = (jobs, err) => {
    const mine = jobs.filter((j) => held.delete(j.id));
    if (mine.length === 0) return;
    void settle(mine, err).then(() => {
      freedSince += mine.length;
      if (wanted || freedSince >= opts.minFetch || held.size === 0) {
        wanted = true;
        nudge();
      }
    });
  };
  const run = (jobs: Job<T>[]) =>
    handle(jobs, finish).catch((err: unknown) => {
      logger.error({ err, queue }, 'slot worker handler failed');
      finish(jobs, err);
    });

  const heartbeat = setInterval(
    () => {
      if (held.size === 0) return;
      boss.touch(queue, [...held.values()]).catch((err: unknown) => logger.warn({ err, queue }, 'heartbeat failed'));
    },
    (HEARTBEAT_SECONDS / 2) * 1000,
  );
  heartbeat.unref();

  const loop = (async () => {
    while (!stopping) {
      const free = opts.capacity - held.size;
      if (wanted && free > 0) {
        wanted = false;
        freedSince = 0;
        const size = fetchSize(free, opts.minFetch);
        let jobs: Job<T>[] = [];
        try {
          const group = opts.groupConcurrency;
          jobs = group
            ? await group.fetchIn((db) => boss.fetch<T>(queue, { batchSize: size, groupConcurrency: group.limit, db }))
            : await boss.fetch<T>(queue, { batchSize: size });
        } catch (err) {
          logger.warn({ err, queue }, 'fetch failed');
        }
        if (jobs.length > 0) {
          for (const job of jobs) held.set(job.id, job);
          void run(jobs);
          if (jobs.length === size) wanted = true; // a full fetch: more may wait
        }
        if (wanted) continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wanted = true;
          resolve();
        }, opts.pollSeconds() * 1000);
        signal = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      signal = null;
    }
  })();

  return {
    wake() {
      wanted = true;
      nudge();
    },
    get held() {
      return held.size;
    },
    async stop(timeoutMs) {
      stopping = true;
      nudge();
      await loop;
      const deadline = Date.now() + timeoutMs;
      while (held.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      clearInterval(heartbeat);
      await settle.flush();
      if (held.size > 0)
        logger.warn({ queue, held: held.size }, 'stopped with jobs in flight: a supervisor retries them');
    },
  };
}

// Fetch sizes from a few fixed values (each is its own statement text, planned once per connection).
function fetchSize(free: number, step: number): number {
  return free < step ? free : free - (free % step);
}

/**
 * Completions and failures of jobs settled within SETTLE_WINDOW_MS of each other, in one statement each. A failed
 * statement only logs: those jobs stay active with no heartbeat, and a supervisor retries them (their work is
 * idempotent).
 */
function settler<T>(boss: PgBoss, queue: string, logger: Logger) {
  let done: Job<T>[] = [];
  const failed = new Map<unknown, Job<T>[]>();
  let timer: NodeJS.Timeout | null = null;
  const writes = new Set<Promise<void>>();
  const track = (p: Promise<unknown>) => {
    const w: Promise<void> = p
      .then(
        () => {},
        (err: unknown) => logger.warn({ err, queue }, 'settling jobs failed'),
      )
      .finally(() => writes.delete(w));
    writes.add(w);
    return w;
  };
  const flush = () => {
    timer = null;
    const statements: Promise<unknown>[] = [];
    if (done.length) statements.push(track(boss.complete(queue, done)));
    for (const [err, jobs] of failed) statements.push(track(boss.fail(queue, jobs, { message: String(err) })));
    done = [];
    failed.clear();
    const { resolve } = flushed;
    flushed = Promise.withResolvers<void>();
    void Promise.all(statements).then(() => resolve());
  };
  let flushed = Promise.withResolvers<void>(); // the next flush's statements are done
  // Resolves once the statement that settles these jobs is done (successful or not).
  const settle = (jobs: Job<T>[], err?: unknown): Promise<void> => {
    if (err === undefined) done.push(...jobs);
    else failed.set(err, [...(failed.get(err) ?? []), ...jobs]);
    timer ??= setTimeout(flush, SETTLE_WINDOW_MS);
    return flushed.promise;
  };
  settle.flush = async () => {
    if (timer) {
      clearTimeout(timer);
      flush();
    }
    await Promise.all(writes);
  };
  return settle;
}
