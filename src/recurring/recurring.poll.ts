// The worker's Pix Automático queues with a PSP: callbacks asked about, and the recent changes polled.
import type { AcquirerDeps, AcquirerMandate, AcquirerRecurringCharge } from '../acquirer/acquirer.ts';
import { ormSql } from '../platform/sql.ts';
import { EVERY_MINUTE, QUEUES, WORK_POLLING, every, settleEach, work } from '../platform/queue.ts';
import { applyCallback, applyMandate, applyRecurringCharge, type Applied } from './recurring.callbacks.ts';
import * as sql from './recurring.callbacks.sql.ts';

const BATCH = 10;
const PAGE = 100;

/**
 * The worker's Pix Automático duties with a PSP (ACQUIRER=apipix): each rec or cobr a callback named is asked about
 * and applied; every minute the recs and cobrs the PSP changed within the reconciliation window
 * (APIPIX_RECONCILE_WINDOW_SECONDS, GET /v2/rec and GET /v2/cobr) are applied too, for the callbacks that never came.
 * Both go through the same idempotent use cases, so finding a change twice does nothing twice.
 */
export async function registerRecurringPsp(deps: AcquirerDeps): Promise<void> {
  if (!deps.config.apipix) return;
  const log = deps.logger.child({ module: 'recurring' });
  const ctx = { ...deps, logger: log };
  const options = { ...WORK_POLLING, batchSize: BATCH, burstWhenBatchFull: true, perJobResults: true } as const;
  await work(deps.boss, QUEUES.recurringCallback, options, (jobs) =>
    settleEach(jobs, async (job) => {
      const outcome = await applyCallback(ctx, deps.orm.em.fork(), job);
      if (outcome !== 'applied') log.warn({ job, outcome }, 'PSP callback about something this service does not have');
    }),
  );
  const windowMs = deps.config.apipix.reconcileWindowSeconds * 1000;
  await every(deps.boss, QUEUES.recurringPoll, EVERY_MINUTE, async () => {
    const counts = await pollRecurring(ctx, new Date(Date.now() - windowMs), new Date());
    if (counts['mandates.applied'] || counts['recurringCharges.applied']) log.info(counts, 'recurring polled');
  });
}

async function* pages<T>(items: AsyncIterable<T>): AsyncGenerator<T[]> {
  let page: T[] = [];
  for await (const item of items) {
    page.push(item);
    if (page.length < PAGE) continue;
    yield page;
    page = [];
  }
  if (page.length) yield page;
}

// A listed rec that says something this service has not applied yet (the use cases would find nothing to do otherwise;
// with a day's worth of charges in the window, skipping those saves a transaction each).
const mandateNews = (m: AcquirerMandate, ours: sql.MandateState) =>
  (m.status !== ours.status && m.status !== 'CREATED' && m.status !== 'EXPIRED') ||
  (m.requestStatus !== null && m.requestStatus !== ours.request_status);

const chargeNews = (c: AcquirerRecurringCharge, ours: sql.ChargeState) =>
  (ours.status === 'CREATED' && (c.status !== 'CREATED' || c.attempts.length > 0)) ||
  (c.status === 'CANCELED' && (ours.status === 'CREATED' || ours.status === 'ACTIVE')) ||
  c.attempts.some(
    (a) => a.status === 'REJECTED' && ours.attempts.some((o) => o.date === a.date && o.status === 'SCHEDULED'),
  );

// Everything the PSP changed in [from, to) that this service has not applied yet, applied; the counts of each outcome.
export async function pollRecurring(deps: AcquirerDeps, from: Date, to: Date): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const count = (kind: string, a: Applied | 'current') => (counts[`${kind}.${a}`] = (counts[`${kind}.${a}`] ?? 0) + 1);
  const em = () => deps.orm.em.fork();
  for await (const page of pages(deps.acquirer.mandatesBetween(from, to))) {
    const rows = await ormSql(em()).query<sql.MandateState>(sql.MANDATES_BY_REC_IDS, [page.map((m) => m.recId)]);
    const ours = new Map(rows.map((r) => [r.rec_id, r]));
    for (const m of page) {
      const row = ours.get(m.recId);
      if (!row) count('mandates', 'unknown');
      else if (!mandateNews(m, row)) count('mandates', 'current');
      else count('mandates', await applyMandate(deps, em(), m));
    }
  }
  for await (const page of pages(deps.acquirer.recurringChargesBetween(from, to))) {
    const rows = await ormSql(em()).query<sql.ChargeState>(sql.CHARGES_BY_TXIDS, [page.map((c) => c.txid)]);
    const ours = new Map(rows.map((r) => [r.txid, r]));
    for (const c of page) {
      const row = ours.get(c.txid);
      if (!row) count('recurringCharges', 'unknown');
      else if (!chargeNews(c, row)) count('recurringCharges', 'current');
      else count('recurringCharges', await applyRecurringCharge(deps, em(), c));
    }
  }
  return counts;
}
