// A webhook whose deliveries all failed for long enough is disabled automatically.
import { PUSH_FAILURES, DISABLE_FAILING } from './auto-disable.sql.ts';
import type { SqlTx } from '../platform/sql.ts';

/**
 * Automatic disabling (contract): a webhook whose last `minFailures` deliveries all failed for good, the first of them
 * at least `afterSeconds` before the last, with no success between, becomes INACTIVE with disabledReason FAILING.
 *
 * Evaluated without reading any log: `webhooks.failures` holds the times of the final failures since the last success,
 * oldest first, at most `minFailures` of them. A delivery ending (SUCCEEDED or FAILED) updates it in the transaction
 * that records the attempt: a success empties it (RECORD_ATTEMPTS), a final failure appends (PUSH_FAILURES), and the
 * check reads the first and last entries (DISABLE_FAILING). The webhook rows are locked first, in id order, so daemons
 * recording outcomes of the same webhooks at once queue rather than lose an update.
 */
export type DisableSettings = { minFailures: number; afterSeconds: number };

export type Outcome = { webhookId: string; status: 'SUCCEEDED' | 'FAILED'; at: Date };

/**
 * Records final failures (inside the transaction that recorded the attempts, webhooks already locked) and disables the
 * webhooks that qualify; returns their ids. A failure that ended before a success of the same webhook in this batch is
 * not counted: that success came after it.
 */
export async function recordFinalFailures(
  { query, run }: Pick<SqlTx, 'query' | 'run'>,
  outcomes: Outcome[],
  { minFailures, afterSeconds }: DisableSettings,
): Promise<string[]> {
  const lastSuccess = new Map<string, number>();
  for (const o of outcomes)
    if (o.status === 'SUCCEEDED') lastSuccess.set(o.webhookId, Math.max(lastSuccess.get(o.webhookId) ?? 0, +o.at));
  const failed = new Map<string, Date[]>();
  for (const o of outcomes) {
    if (o.status !== 'FAILED' || +o.at < (lastSuccess.get(o.webhookId) ?? 0)) continue;
    failed.set(o.webhookId, [...(failed.get(o.webhookId) ?? []), o.at]);
  }
  if (failed.size === 0) return [];
  const rows = [...failed].map(([webhookId, at]) => ({
    webhook_id: webhookId,
    failed: at.sort((a, b) => +a - +b).map((d) => d.toISOString()),
  }));
  await run(PUSH_FAILURES, [JSON.stringify(rows), minFailures]);
  const disabled = await query<{ id: string }>(DISABLE_FAILING, [[...failed.keys()], minFailures, afterSeconds]);
  return disabled.map((r) => r.id);
}
