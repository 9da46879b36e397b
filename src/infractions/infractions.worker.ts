import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { QUEUES, WORK_POLLING, work } from '../platform/queue.ts';
import { applyAcquirerInfraction, coverAll, coverShortfall } from './infractions.states.ts';

const EVERY_MINUTE = '* * * * *';
// how far back each poll asks the acquirer for infractions it created or changed
const POLL_WINDOW_MS = 7 * 24 * 3600_000;

// The worker's MED duties: block credits owed to open infractions; with a PSP, poll its infractions.
export async function registerInfractions(deps: AcquirerDeps): Promise<void> {
  const { boss, orm, acquirer } = deps;
  const log = deps.logger.child({ module: 'infractions' });
  const ctx = { ...deps, logger: log };
  await work(boss, QUEUES.infractionsCover, WORK_POLLING, async ([job]) => {
    const covered = job.data?.merchantId
      ? await coverShortfall(ctx, orm.em.fork(), job.data.merchantId)
      : await coverAll(ctx, orm.em.fork());
    if (covered) log.info({ covered }, 'credits blocked for open infractions');
  });
  await boss.schedule(QUEUES.infractionsCover, EVERY_MINUTE);
  if (deps.config.acquirer !== 'apipix') return;
  await boss.work(QUEUES.infractionsPoll, WORK_POLLING, async () => {
    const counts: Record<string, number> = {};
    for await (const i of acquirer.infractionsBetween(new Date(Date.now() - POLL_WINDOW_MS), new Date())) {
      const r = await applyAcquirerInfraction(ctx, orm.em.fork(), i);
      counts[r] = (counts[r] ?? 0) + 1;
    }
    if (counts.opened || counts.updated) log.info(counts, 'infractions polled');
  });
  await boss.schedule(QUEUES.infractionsPoll, EVERY_MINUTE);
}
