// The worker's mandate queues: a PUSH mandate's request, a mandate's cancellation at the PSP.
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import { QUEUES, WORK_POLLING, settleEach, work } from '../platform/queue.ts';
import type { MandateRequestJob } from '../platform/queue.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './mandates.sql.ts';

const BATCH = 10;
const OPTIONS = { ...WORK_POLLING, batchSize: BATCH, burstWhenBatchFull: true, perJobResults: true } as const;

// The worker's mandate duties: a PUSH mandate's request to the payer's PSP (solicrec), and the merchant's
// cancellation of a mandate at the PSP. Both idempotent at the PSP (by request id, by recId).
export async function registerMandates(deps: AcquirerDeps): Promise<void> {
  const { boss, acquirer, orm } = deps;
  // a request that is no longer the mandate's current one, or no longer SENT, is not sent (a stale or repeated job)
  const sendRequest = async ({ mandateId, requestId }: MandateRequestJob) => {
    const [m] = await ormSql(orm.em.fork()).query<sql.MandateRow>(sql.BY_ID, [mandateId]);
    if (!m || m.request_id !== requestId || m.request_status !== 'SENT' || m.status !== 'CREATED') return;
    await acquirer.requestMandate(requestId, {
      recId: m.rec_id,
      payerAccount: m.payer_account!,
      expiresAt: new Date(m.expires_at).toISOString(),
    });
  };
  await work(boss, QUEUES.mandateRequest, OPTIONS, (jobs) => settleEach(jobs, sendRequest));
  await work(boss, QUEUES.mandateCancel, OPTIONS, (jobs) =>
    settleEach(jobs, ({ recId }) => acquirer.cancelMandate(recId)),
  );
}
