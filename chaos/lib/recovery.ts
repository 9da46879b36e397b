// Recovery after each kill, read from pg-boss's own table: the jobs the killed process held (active at the kill) and
// how long until each of them ended, per queue; and how long until the process's queues completed a job again.
import pg from 'pg';
import { QUEUES } from '../../src/platform/queue.ts';

const FINAL = ['completed', 'failed', 'cancelled'];
export const DAEMON_QUEUES = [QUEUES.webhookDeliver];
export const WORKER_QUEUES = Object.values(QUEUES).filter((q) => q !== QUEUES.webhookDeliver);

export type KillRecord = {
  process: string;
  at: number;
  held: { id: string; queue: string; endedAfterMs?: number; state?: string }[]; // endedAfterMs: taken over or ended
  resumedAfterMs?: number; // the first job of its queues completed after the kill
};

export function createRecoveryMonitor(url: string) {
  const kills: KillRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  let busy = false;

  const withClient = async <T>(f: (c: pg.Client) => Promise<T>): Promise<T | undefined> => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await c.connect();
      return await f(c);
    } catch {
      return undefined; // PostgreSQL is down: try again at the next pass
    } finally {
      await c.end().catch(() => {});
    }
  };

  async function poll() {
    if (busy) return;
    busy = true;
    await withClient(async (c) => {
      for (const k of kills) {
        const open = k.held.filter((h) => h.endedAfterMs === undefined);
        if (open.length) {
          const { rows } = await c.query<{
            id: string;
            state: string;
            started_on: Date | null;
            completed_on: Date | null;
          }>('select id, state, started_on, completed_on from pgboss.job where id = any($1::uuid[])', [
            open.map((h) => h.id),
          ]);
          for (const r of rows) {
            // taken over: claimed again by a live process (started after the kill), or ended
            const retaken = r.state === 'active' && r.started_on && r.started_on.getTime() > k.at;
            if (!retaken && !FINAL.includes(r.state)) continue;
            const h = open.find((x) => x.id === r.id)!;
            h.state = r.state;
            h.endedAfterMs = ((retaken ? r.started_on : r.completed_on)?.getTime() ?? Date.now()) - k.at;
          }
        }
        if (k.resumedAfterMs === undefined) {
          const queues = k.process === 'webhooks' ? DAEMON_QUEUES : WORKER_QUEUES;
          const { rows } = await c.query<{ first: Date | null }>(
            `select min(completed_on) as first from pgboss.job
             where name = any($1) and state = 'completed' and completed_on > $2 and started_on > $2`,
            [queues, new Date(k.at)],
          );
          if (rows[0].first) k.resumedAfterMs = rows[0].first.getTime() - k.at;
        }
      }
    });
    busy = false;
  }

  return {
    kills,
    start() {
      timer = setInterval(() => void poll(), 250);
    },
    async stop() {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 50));
      await poll();
    },
    // snapshot what the process holds, then kill it
    async kill(process: string, kill: () => Promise<void>) {
      const queues = process === 'webhooks' ? DAEMON_QUEUES : WORKER_QUEUES;
      // kill it while it holds work, if it gets any within 3 s (its jobs last milliseconds)
      const activeJobs = () =>
        withClient(async (c) => {
          const { rows } = await c.query<{ id: string; name: string }>(
            `select id, name from pgboss.job where state = 'active' and name = any($1)`,
            [queues],
          );
          return rows.map((r) => ({ id: r.id, queue: r.name }));
        });
      let held = (await activeJobs()) ?? [];
      for (const until = Date.now() + 3000; held.length === 0 && Date.now() < until;) held = (await activeJobs()) ?? [];
      const at = Date.now();
      await kill();
      kills.push({ process, at, held });
    },
  };
}
