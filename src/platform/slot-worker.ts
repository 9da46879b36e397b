// A queue worked slot by slot (the webhook daemon's), each slot freed as its job ends.
import { FETCH_LOCK } from './slot-worker.sql.ts';
import type { Sql } from './sql.ts';
import type { Db, Job, PgBoss } from 'pg-boss';
import type { Logger } from './logger.ts';
import { HEARTBEAT_SECONDS, type Queue } from './queue.ts';

/**
 * A queue worked slot by slot (the webhook daemon's). pg-boss' work() hands a batch to its handler and fetches again
 * only once the whole batch is done, so one job that waits for a receiver hanging until its timeout holds every slot
 * of its batch. Here each job holds one slot, and only until its own work is done:
 *
 * - the handler settles each job on its own (`finish`); its slot is free at once, and its completion (or failure, for
 *   pg-boss to retry) joins those settled within the same few milliseconds in one statement, unless the handler
 *   completed it in its own transaction;
 * - most slots are open: a fetch fills them first come, first served (a plain pg-boss fetch, in queue order). The
 *   `reserved` ones go only to groups (merchants) with fewer than `groupLimit` jobs active across every process,
 *   counted by pg-boss in the database: whatever one group's jobs do, another's always find a slot. A lone group
 *   still uses every open slot of every process (its throughput is not capped);
 * - it fetches when woken (a NOTIFY for the queue, a due retry, the poll) and whenever at least `minFetch` slots have
 *   come free: a backlog is drained in fetches of a useful size. A reserved fetch passes over the jobs of the groups at
 *   their limit, reading each of them, so after one that found nothing it waits for the next wake-up (new jobs, the
 *   poll) rather than run again at every completion;
 * - the jobs held are kept alive by one heartbeat statement every HEARTBEAT_SECONDS / 2; a process that dies stops
 *   refreshing them, and a supervisor retries them (queue.ts, crash recovery).
 */
export type SlotWorkerOptions = {
  capacity: number; // slots of this process
  minFetch: number; // free slots worth a fetch while jobs are running
  pollSeconds: () => number; // fetch at least this often (retries and a lost NOTIFY wake nobody)
  reserved?: {
    slots: number; // of `capacity`
    groupLimit: number; // a group with this many jobs active across every process gets no reserved slot
    // pg-boss counts a group's active jobs as its fetch starts, so two reserved fetches at once would each see the
    // other's claims as not yet taken: each runs in a transaction that first takes a lock every process of the queue
    // shares (FETCH_LOCK), and so sees every claim made before it.
    fetchIn: <R>(fetch: (db: Db) => Promise<R>) => Promise<R>;
  };
};
// How a job's work ended: done (the worker completes it), done and completed by the handler in its own transaction
// (with what it wrote: one commit), or failed (pg-boss retries it).
export type Outcome = 'done' | 'completed' | { failed: unknown };
export type Finish<T> = (jobs: Job<T>[], outcome?: Outcome) => void;
// Starts the work of `jobs`; calls `finish` for each exactly once (a throw or rejection fails those not yet finished).
export type SlotHandler<T> = (jobs: Job<T>[], finish: Finish<T>) => Promise<void>;
export type SlotWorker = {
  wake: () => void;
  readonly held: number;
  stop: (timeoutMs: number) => Promise<void>; // no new fetch; waits (up to timeoutMs) for the jobs held
};

const SETTLE_WINDOW_MS = 5;

// Serialises the reserved fetches of one queue, in the fetch's own transaction (FETCH_LOCK).
export const lockFetches = async (sql: Pick<Sql, 'query'>, queue: string): Promise<void> => {
  await sql.query(FETCH_LOCK, [queue]);
};

export function startSlotWorker<T extends object>(
  boss: PgBoss,
  queue: Queue<T>,
  opts: SlotWorkerOptions,
  handle: SlotHandler<T>,
  logger: Logger,
): SlotWorker {
  const reserved = opts.reserved ? Math.min(opts.reserved.slots, opts.capacity) : 0;
  const held = new Map<string, Job<T>>();
  let stopping = false;
  let woken = true; // a wake-up (NOTIFY, poll, timer): new jobs may be waiting, of any group
  let drained = false; // slots came free: the backlog found before may go on
  let reserveIdle = false; // the last reserved fetch found nothing: no more until a wake-up
  let freedSince = 0; // slots freed since the last fetch
  let signal: (() => void) | null = null;
  const nudge = () => signal?.();

  const settle = settler(boss, queue, logger);
  // A finished job's slot is free at once; the fetch it may call for waits for its completion to commit, since
  // until then pg-boss still counts the job among its group's active ones.
  const finish: Finish<T> = (jobs, outcome = 'done') => {
    const mine = jobs.filter((j) => held.delete(j.id));
    if (mine.length === 0) return;
    const settled =
      outcome === 'completed' ? Promise.resolve() : settle(mine, outcome === 'done' ? undefined : outcome.failed);
    void settled.then(() => {
      freedSince += mine.length;
      if (freedSince >= opts.minFetch || held.size === 0) {
        drained = true;
        nudge();
      }
    });
  };
  const start = (jobs: Job<T>[]) => {
    if (jobs.length === 0) return;
    for (const job of jobs) held.set(job.id, job);
    void handle(jobs, finish).catch((err: unknown) => {
      logger.error({ err, queue }, 'slot worker handler failed');
      finish(jobs, { failed: err });
    });
  };
  const fetch = async (size: number, reserve: boolean): Promise<Job<T>[]> => {
    try {
      if (!reserve || !opts.reserved) return await boss.fetch<T>(queue, { batchSize: size });
      const { groupLimit, fetchIn } = opts.reserved;
      return await fetchIn((db) => boss.fetch<T>(queue, { batchSize: size, groupConcurrency: groupLimit, db }));
    } catch (err) {
      logger.warn({ err, queue }, 'fetch failed');
      return [];
    }
  };

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
      if (woken || drained) {
        const wake = woken;
        woken = drained = false;
        freedSince = 0;
        if (wake) reserveIdle = false;
        // the open slots, first come, first served; then the reserved ones (and any open one left), if jobs remain
        const open = opts.capacity - held.size - reserved;
        let more = open <= 0;
        if (open > 0) {
          const size = fetchSize(open, opts.minFetch);
          const jobs = await fetch(size, false);
          start(jobs);
          more = jobs.length === size;
        }
        const free = opts.capacity - held.size;
        if (more && free > 0 && reserved > 0 && !reserveIdle) {
          const jobs = await fetch(free, true);
          start(jobs);
          reserveIdle = jobs.length === 0;
          if (jobs.length === free) woken = true; // filled: more may wait
        } else if (more && open > 0) drained = true; // a full open fetch: more may wait
        if (woken || drained) continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          woken = true;
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
      woken = true;
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
