// The worker's MED queues: cover what open infractions are owed; with a PSP, poll its infractions.
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { EVERY_MINUTE, QUEUES, every } from '../platform/queue.ts';
import { applyAcquirerInfraction, coverAll, coverShortfall } from './infractions.states.ts';

// how far back each poll asks the acquirer for infractions it created or changed
const POLL_WINDOW_MS = 7 * 24 * 3600_000;

// The worker's MED duties: block credits owed to open infractions; with a PSP, poll its infractions.
export async function registerInfractions(deps: AcquirerDeps): Promise<void> {
  const { boss, orm, acquirer } = deps;
  const log = deps.logger.child({ module: 'infractions' });
  const ctx = { ...deps, logger: log };
  await every(boss, QUEUES.infractionsCover, EVERY_MINUTE, async ([job]) => {
    const covered = job.data?.merchantId
      ? await coverShortfall(ctx, orm.em.fork(), job.data.merchantId)
      : await coverAll(ctx, orm.em.fork());
    if (covered) log.info({ covered }, 'credits blocked for open infractions');
  });
  if (deps.config.acquirer !== 'apipix') return;
  await every(boss, QUEUES.infractionsPoll, EVERY_MINUTE, async () => {
    const counts: Record<string, number> = {};
    for await (const i of acquirer.infractionsBetween(new Date(Date.now() - POLL_WINDOW_MS), new Date())) {
      const r = await applyAcquirerInfraction(ctx, orm.em.fork(), i);
      counts[r] = (counts[r] ?? 0) + 1;
    }
    if (counts.opened || counts.updated) log.info(counts, 'infractions polled');
  });
}
