// What every process is built from: the ORM, pg-boss, the logger, the clock and the acquirer adapter.
import type { Config } from './platform/config.ts';
import type { Logger } from './platform/logger.ts';
import { createBoss, listenUrlOf } from './platform/queue.ts';
import { createOrm } from './database.ts';
import { canPrepare } from './platform/prepared.ts';
import { createAcquirer } from './acquirer/index.ts';
import type { AcquirerDeps } from './acquirer/acquirer.ts';

// What every process is built from: the platform's services and the acquirer adapter named by ACQUIRER.
export type Deps = AcquirerDeps;

export async function buildDeps(
  config: Config,
  logger: Logger,
  // work: this process works queues (the worker), so it wakes on NOTIFY; the API only sends jobs
  bossOptions: { supervise?: boolean; schedule?: boolean; work?: boolean } = {},
  clock: () => Date = () => new Date(),
): Promise<Deps> {
  const orm = await createOrm(config.databaseUrl, { pool: { min: 0, max: config.dbPoolMax } }, canPrepare(config));
  const { work, ...rest } = bossOptions;
  const boss = await createBoss(config.databaseUrl, logger, {
    ...rest,
    listenUrl: work ? listenUrlOf(config) : undefined,
    prepare: canPrepare(config),
  });
  return { config, orm, boss, logger, clock, acquirer: createAcquirer(config, { orm, boss, logger }) };
}

// Stops fetching jobs (waiting for those in flight), then closes the pool.
export async function closeDeps({ boss, orm }: Deps): Promise<void> {
  await boss.stop({ graceful: true, timeout: 20_000 });
  await orm.close();
}
